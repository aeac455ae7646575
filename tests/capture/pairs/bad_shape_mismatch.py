"""Bad pair: production's output has another shape than the reference's."""
import torch


def example_inputs():
    return (torch.randn(3, 4),)


def reference(x):
    return x.sum(-1)


def production(x):
    return x.sum(-1, keepdim=True)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: bad_shape_mismatch.py:14
