"""rounded_gelu_slope.py with a planted bug: the backward's x^2 coefficient is 3 c k
(0.10703222440890037, the first derivative's) instead of 4.5 c k (a wrong constant)."""
from rounded_gelu_slope import MODE, example_inputs, reference  # noqa: F401
from rounded_gelu_slope import production as correct_production


def production(x, g):
    return correct_production(x, g, cubic=0.10703222440890037)
