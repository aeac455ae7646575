"""Bad pair: production branches on a tensor value (line 14)."""
import torch


def example_inputs():
    return (torch.randn(3, 4),)


def reference(x):
    return torch.relu(x)


def production(x):
    if x.sum() > 0:
        return x.clamp(min=0)
    return torch.relu(x)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: bad_data_dependent.py:14
# EXPECT-REASON: data-dependent control flow
