"""A complex output is refused with the workaround (docs/complex.md)."""
import torch

# EXPECT: error
# EXPECT-REASON: return torch.view_as_real(...) of it

def example_inputs():
    return (torch.randn(3, 2),)


def reference(x):
    return torch.view_as_complex(x) * 2


def production(x):
    return torch.view_as_complex(x) * 2.0
