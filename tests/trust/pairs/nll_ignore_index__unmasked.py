"""nll_ignore_index.py with a planted bug: production gathers ignore_index rows at class 0 and
averages over every row (it does not handle ignore_index)."""
from nll_ignore_index import example_inputs, masked_nll, reference  # noqa: F401


def production(logp, target):
    return masked_nll(logp, target, mask_ignored=False)
