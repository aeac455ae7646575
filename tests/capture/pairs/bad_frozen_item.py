"""Bad pair: production reads a norm as a Python number and feeds it back as a tensor (line 15),
as gradient clipping written on the host does."""
import torch


def example_inputs():
    return (torch.randn(4, 8),)


def reference(x):
    return x / x.norm().clamp(min=1.0)


def production(x):
    norm = torch.tensor(x.norm().item())
    return x / norm.clamp(min=1.0)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: Tensor.item() of a tensor computed from the inputs
