"""softmax_xent_train.py with a planted bug in production: an extra 1e-7 * logits in the gradient."""
from softmax_xent_train import MODE, example_inputs, reference  # noqa: F401
from softmax_xent_train import production as correct_production


def production(logits, y):
    return correct_production(logits, y, bug="tiny_term")


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-REASON: replayed through LibTorch
# NEVER: equivalent
