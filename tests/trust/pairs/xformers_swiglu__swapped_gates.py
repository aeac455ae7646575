"""xformers_swiglu.py with a planted bug: each gate's gradient takes the other gate's activation
(dx3 = dx4 * x3 and dx2 = dx4 * x2: a swapped operand)."""
from xformers_swiglu import MODE, example_inputs, reference  # noqa: F401
from xformers_swiglu import production as correct_production


def production(x, w1, b1, w2, b2, w3, b3, c):
    return correct_production(x, w1, b1, w2, b2, w3, b3, c, bug="swapped_gates")
