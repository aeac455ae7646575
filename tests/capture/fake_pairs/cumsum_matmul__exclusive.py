"""Shape-only pair with a planted bug that the graphs alone leave undecided (torchtv has no
semantics for cumsum) and small_inputs() where running the functions refutes it.
Planted bug (production only): triu(1) makes the prefix sum exclusive."""
import torch

N = 4096


def example_inputs():
    return (torch.empty(N, N, device="meta"),)


def small_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8),)


def reference(x):
    return torch.cumsum(x, -1)


def production(x):
    n = x.shape[-1]
    return x @ torch.ones(n, n, dtype=x.dtype).triu(1)
