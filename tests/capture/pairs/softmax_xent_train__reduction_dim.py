"""softmax_xent_train.py with a planted bug in production: the targets are summed over tokens, not over the vocabulary."""
from softmax_xent_train import MODE, example_inputs, reference  # noqa: F401
from softmax_xent_train import production as correct_production


def production(logits, y):
    return correct_production(logits, y, bug="reduction_dim")


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-REASON: replayed through LibTorch
# NEVER: equivalent
