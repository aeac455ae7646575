"""timm's hard_swish written with relu6, against torch's F.hardswish.

Follows huggingface/pytorch-image-models timm/layers/activations.py, `hard_swish`
(x * F.relu6(x + 3.) / 6.) and `hard_sigmoid` (F.relu6(x + 3.) / 6.)."""
import torch
import torch.nn.functional as F

MODE = "forward"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 6) * 4,)


def reference(x):
    return F.hardswish(x), F.hardsigmoid(x)


def production(x, divisor=6.0):
    gate = F.relu6(x + 3.0) / divisor
    return x * gate, gate
