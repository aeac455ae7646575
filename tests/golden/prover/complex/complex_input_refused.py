"""A complex example input is refused with the workaround (docs/complex.md): values inside the
function may be complex, its inputs not yet."""
import torch

# EXPECT: error
# EXPECT-REASON: pass torch.view_as_real(x) and call torch.view_as_complex inside the function

def example_inputs():
    return (torch.randn(3, dtype=torch.complex64),)


def reference(x):
    return torch.view_as_real(x)


def production(x):
    return torch.view_as_real(x * 1)
