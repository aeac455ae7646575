"""rounded_taylor_cos.py with a planted bug: the backward of x**4 / 24 takes 3 x^3 / 24 (a wrong
scale: the exponent's factor off by one)."""
from rounded_taylor_cos import MODE, example_inputs, reference  # noqa: F401
from rounded_taylor_cos import production as correct_production


def production(x, c):
    return correct_production(x, c, power_factor=3)
