"""Bad pair: an in-place op whose input is read again afterwards."""
import torch


def example_inputs():
    return (torch.randn(3, 4),)


def reference(x):
    return x * 2 + x


def production(x):
    y = x.clone()
    v = y.view(12)
    y.mul_(2)
    return y + v.view(3, 4) / 2


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: bad_inplace_alias.py:16
