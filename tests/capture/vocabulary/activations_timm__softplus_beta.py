"""activations_timm.py with a planted bug in production: softplus computed with beta = 1 where the
reference passes beta = 2."""
from activations_timm import THRESHOLD, example_inputs, reference  # noqa: F401
from activations_timm import production as correct_production, softplus


def production(x):
    outs = correct_production(x)
    return (softplus(x, 1.0, THRESHOLD),) + outs[1:]


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-OUTPUT: out0 not_equivalent
