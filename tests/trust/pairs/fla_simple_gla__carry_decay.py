"""fla_simple_gla.py with a planted bug: each key's contribution to the state carried to the next
chunk decays up to the chunk's first position instead of its last (a swapped index)."""
from fla_simple_gla import chunked, example_inputs, reference  # noqa: F401


def production(q, k, v, g):
    return chunked(q, k, v, g, carry_position=0)
