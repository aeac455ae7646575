"""swiglu_mlp_train.py with a planted bug in production: an extra 1e-7 * wu in the up projection's gradient."""
from swiglu_mlp_train import MODE, example_inputs, reference  # noqa: F401
from swiglu_mlp_train import production as correct_production


def production(x, wg, wu, wd, c):
    return correct_production(x, wg, wu, wd, c, bug="tiny_term")


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-REASON: replayed through LibTorch
# NEVER: equivalent
