"""Conv followed by inference-mode batch norm, against the convolution with batch norm folded
into its weights by torch's own `torch.nn.utils.fusion.fuse_conv_bn_weights` (the fold
`torch.ao.quantization`'s fuse_modules and torch.fx's `fuse` apply), which returns its weights
wrapped in `torch.nn.Parameter`. make_fx used to freeze those parameters as constants holding their
values at example_inputs(), and the graphs were refuted at inputs where the code agrees
(issue 34; Note [Nothing computed from the inputs is frozen] in torchtv_capture/frozen.py)."""
import torch
import torch.nn.functional as F
from torch.nn.utils.fusion import fuse_conv_bn_weights

EPS = 1e-5


def example_inputs():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 6, 6, generator=g)
    w = torch.randn(4, 3, 3, 3, generator=g)
    b = torch.randn(4, generator=g)
    mean = torch.randn(4, generator=g)
    var = torch.rand(4, generator=g) + 0.5
    gamma = torch.randn(4, generator=g)
    beta = torch.randn(4, generator=g)
    return x, w, b, mean, var, gamma, beta


def reference(x, w, b, mean, var, gamma, beta):
    y = F.conv2d(x, w, b, padding=1)
    return F.batch_norm(y, mean, var, gamma, beta, training=False, eps=EPS)


def production(x, w, b, mean, var, gamma, beta, eps=EPS):
    fused_w, fused_b = fuse_conv_bn_weights(w, b, mean, var, eps, gamma, beta)
    return F.conv2d(x, fused_w, fused_b, padding=1)
