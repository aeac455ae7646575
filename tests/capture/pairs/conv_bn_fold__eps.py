"""conv_bn_fold.py with a planted bug in production: the fold uses eps 1e-3 where the batch norm
uses 1e-5."""
from conv_bn_fold import example_inputs, reference  # noqa: F401
from conv_bn_fold import production as correct_production


def production(x, w, b, mean, var, gamma, beta):
    return correct_production(x, w, b, mean, var, gamma, beta, eps=1e-3)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# NEVER: equivalent
