"""A LoRA-style gradient written into uninitialized memory: `torch.empty_like(A).addmm_(x, y,
beta=0)` (issue 23). beta=0 ignores the uninitialized operand (NaN included), so the result does
not depend on it: decided like `x @ y`."""
import torch


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 4), torch.randn(3, 5), torch.randn(5, 4))


def reference(A, x, y):
    return x @ y


def production(A, x, y):
    return torch.empty_like(A).addmm_(x, y, beta=0)


# EXPECT: equivalent
