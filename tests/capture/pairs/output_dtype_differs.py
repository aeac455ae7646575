"""Production returns float64 where the reference returns float32: not_equivalent, whatever the
values (a dtype is part of what a function returns)."""
import torch


def example_inputs():
    return (torch.randn(3, 4),)


def reference(x):
    return x * 2.0


def production(x):
    return x.double() * 2.0


# EXPECT: not_equivalent
# EXPECT-REASON: output types differ: reference f32[3,4], production f64[3,4]
