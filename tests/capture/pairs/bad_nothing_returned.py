"""Bad pair: the reference returns nothing and updates none of its inputs, so there is no output to
compare (a function that only updates its inputs in place is fine: tests/capture/optim/sgd_in_place.py)."""
import torch


def example_inputs():
    return (torch.randn(4, 3), torch.randn(4, 3))


def reference(p, g):
    q = p - 0.1 * g  # noqa: F841 -- computed and dropped


def production(p, g):
    return p - 0.1 * g


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: bad_nothing_returned.py:10
# EXPECT-REASON: nothing to compare
