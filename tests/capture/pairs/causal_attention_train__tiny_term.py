"""causal_attention_train.py with a planted bug in production: an extra 1e-7 * k in the key gradient."""
from causal_attention_train import MODE, example_inputs, reference  # noqa: F401
from causal_attention_train import production as correct_production


def production(q, k, v, c):
    return correct_production(q, k, v, c, bug="tiny_term")


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-REASON: replayed through LibTorch
# NEVER: equivalent
