"""fla_linear_attn.py with a planted bug: the intra-chunk mask also drops the diagonal (each
position misses its own key: an off-by-one index)."""
from fla_linear_attn import chunked, example_inputs, reference  # noqa: F401


def production(q, k, v):
    return chunked(q, k, v, diagonal=0)
