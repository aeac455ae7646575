"""Bad pair: a syntax error on line 9."""
import torch


def example_inputs():
    return (torch.randn(3),)


def reference(x)
    return x * 2


def production(x):
    return x + x
