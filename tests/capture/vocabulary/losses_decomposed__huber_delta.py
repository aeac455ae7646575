"""losses_decomposed.py with a planted bug in production: the Huber loss uses PyTorch's default
delta 1.0 where the reference passes 0.5."""
from losses_decomposed import example_inputs, reference  # noqa: F401
from losses_decomposed import huber, production as correct_production


def production(x, t, p, y):
    return (huber(x, t, 1.0),) + correct_production(x, t, p, y)[1:]


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-OUTPUT: out0 not_equivalent
