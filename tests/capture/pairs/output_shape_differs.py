"""Production's output has another shape than the reference's: not_equivalent, not an error
(issue 15: outputs of different types are a difference a user needs to see)."""
import torch


def example_inputs():
    return (torch.randn(3, 4),)


def reference(x):
    return x.sum(-1)


def production(x):
    return x.sum(-1, keepdim=True)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-REASON: output types differ: reference f32[3], production f32[3,1]
