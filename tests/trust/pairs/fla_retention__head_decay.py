"""fla_retention.py with a planted bug: the heads' decays are swapped (head 0 decays with head
1's gamma and back: a swapped index)."""
from fla_retention import example_inputs, recurrent, reference  # noqa: F401


def production(q, k, v):
    return recurrent(q, k, v, head_order=[1, 0])
