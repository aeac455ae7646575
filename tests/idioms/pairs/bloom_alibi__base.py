"""bloom_alibi.py with a planted bug: the slope base computed with log2(n) - 2 (slopes 2^-1 ... for
2^-2 ...), a mistake of one in the exponent."""
import bloom_alibi
from bloom_alibi import HEADS, MODE, example_inputs, reference  # noqa: F401


def production(scores):
    return bloom_alibi.production(scores, shift=2)
