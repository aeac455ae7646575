"""mixed_precision_attention.py with a planted bug: the softmax normalizes over the queries
(dim -2) instead of the keys (a swapped index)."""
from mixed_precision_attention import autocast_attention, example_inputs, reference  # noqa: F401


def production(q, k, v):
    return autocast_attention(q, k, v, softmax_dim=-2)
