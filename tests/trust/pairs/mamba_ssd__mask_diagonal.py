"""mamba_ssd.py with a planted bug: the intra-chunk causal mask drops the diagonal (each
position misses its own input: an off-by-one index)."""
from mamba_ssd import chunk_scan, example_inputs, reference  # noqa: F401


def production(x, dt, a, b, c, d):
    return chunk_scan(x, dt, a, b, c, d, diagonal=-1)
