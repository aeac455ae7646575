"""xent_ignore_index.py with a planted bug: the mean divides by every row, the ignored ones
too (production mishandles ignore_index: a wrong scale whenever a target is ignored)."""
from xent_ignore_index import MODE, example_inputs, masked_xent, reference  # noqa: F401


def production(logits, target):
    return masked_xent(logits, target, count_ignored=True)
