"""fla_based.py with a planted bug: the quadratic term carried from earlier chunks lacks its
factor 1/2 (a wrong scale)."""
from fla_based import chunked, example_inputs, reference  # noqa: F401


def production(q, k, v):
    return chunked(q, k, v, quadratic=1.0)
