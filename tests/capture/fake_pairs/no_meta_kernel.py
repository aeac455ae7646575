"""Shape-only pair whose custom op has no Meta kernel: the capture must say so."""
import torch

_lib = torch.library.Library("fakepair_nometa", "DEF")
_lib.define("twice(Tensor x) -> Tensor")
_lib.impl("twice", lambda x: x * 2, "CPU")


def example_inputs():
    return (torch.empty(1024, 1024, device="meta"),)


def reference(x):
    return x * 2


def production(x):
    return torch.ops.fakepair_nometa.twice(x)
