"""Activations as timm writes them by hand (timm/layers/activations.py: `hard_swish`, `hard_sigmoid`,
`mish`, and the softplus/ELU/CELU formulas of PyTorch's docs) against torch.nn.functional's ops,
which torchtv reads through their torch 1.13 decompositions (fusions/decompositions.tvir)."""
import torch
import torch.nn.functional as F

BETA, THRESHOLD = 2.0, 10.0


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8) * 4,)


def reference(x):
    return (F.softplus(x, beta=BETA, threshold=THRESHOLD), F.elu(x, alpha=0.5), F.celu(x, alpha=2.0),
            F.hardswish(x), F.hardsigmoid(x), F.mish(x), F.logsigmoid(x))


def softplus(x, beta, threshold):
    return torch.where(x * beta > threshold, x, torch.log1p(torch.exp(x * beta)) / beta)


def production(x):
    sp = softplus(x, BETA, THRESHOLD)
    elu = torch.where(x > 0, x, 0.5 * (torch.exp(x) - 1))
    celu = torch.where(x > 0, x, 2.0 * torch.expm1(x / 2.0))
    hard_swish = x * F.relu6(x + 3.) / 6.
    hard_sigmoid = F.relu6(x + 3.) / 6.
    mish = x.mul(softplus(x, 1.0, 20.0).tanh())
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), the stable form of ATen's kernel
    log_sigmoid = torch.clamp(x, max=0) - torch.log1p(torch.exp(-torch.abs(x)))
    return sp, elu, celu, hard_swish, hard_sigmoid, mish, log_sigmoid
