"""Bad pair: no production function."""
import torch


def example_inputs():
    return (torch.randn(3),)


def reference(x):
    return x * 2


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: defines no function 'production'
