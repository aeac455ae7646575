"""A production function whose traced graph is not the code that runs: under a tracer it takes
one branch, eagerly another that differs from it only by rounding. The graphs are equal bit for
bit, the code that runs is not: the eager cross-check demotes the claim to real
(Note [Cross-checks])."""
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode


def _being_traced():
    # make_fx's mode, by name: the eager cross-check runs under a dispatch mode of its own
    # (Note [Float64 evidence only from float64 runs]), which is not a tracer
    return type(_get_current_dispatch_mode()).__name__ == "ProxyTorchDispatchMode"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 33),)


def reference(x):
    return x * 0.1


def production(x):
    if _being_traced():
        return x * 0.1
    return x / 10.0


# EXPECT: equivalent real
# EXPECT-REASON: the captured graph differs from the code that runs
