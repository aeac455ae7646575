"""Shape-only pair: meta example inputs of 16 GiB each, captured with fake tensors."""
import torch

MODE = "train_step"

_lib = torch.library.Library("fakepair", "DEF")
_lib.define("scale(Tensor x) -> Tensor")


def scale_ref(x):
    return x * 2


_lib.impl("scale", scale_ref, "CPU")
_lib.impl("scale", scale_ref, "Meta")
FUSIONS = {"fakepair::scale": scale_ref}
N = 65536


def example_inputs():
    return (torch.empty(N, N, device="meta"), torch.empty(N, N, device="meta", requires_grad=True))


def reference(x, w):
    return ((x @ w) * 2).sum()


def production(x, w):
    return torch.ops.fakepair.scale(x @ w).sum(), x.t() @ (torch.ones(N, N) * 2)
