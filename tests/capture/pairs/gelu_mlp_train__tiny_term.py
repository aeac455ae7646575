"""gelu_mlp_train.py with a planted bug in production: an extra 1e-7 * w1 in the first weight's gradient."""
from gelu_mlp_train import MODE, example_inputs, reference  # noqa: F401
from gelu_mlp_train import production as correct_production


def production(x, w1, w2, c):
    return correct_production(x, w1, w2, c, bug="tiny_term")


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-REASON: replayed through LibTorch
# NEVER: equivalent
