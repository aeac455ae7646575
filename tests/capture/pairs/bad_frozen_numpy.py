"""Bad pair: production computes a mask in NumPy and brings it back (line 15): the graph would
hold the mask of example_inputs() as a constant."""
import torch


def example_inputs():
    return (torch.randn(4, 8),)


def reference(x):
    return torch.where(x > 0, x, torch.zeros_like(x))


def production(x):
    keep = torch.from_numpy((x > 0).numpy())
    return x * keep


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: Tensor.numpy() of a tensor computed from the inputs
