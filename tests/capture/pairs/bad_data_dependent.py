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
