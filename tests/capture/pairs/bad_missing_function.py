"""Bad pair: no production function."""
import torch


def example_inputs():
    return (torch.randn(3),)


def reference(x):
    return x * 2
