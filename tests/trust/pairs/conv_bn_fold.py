"""Conv + eval-mode BatchNorm against the conv with BatchNorm folded into its weights, the folded
parameters built inside the function.

production calls torch's own torch.nn.utils.fusion.fuse_conv_bn_weights (torch/nn/utils/fusion.py),
which returns torch.nn.Parameter(...) wrappers of w * gamma / sqrt(var + eps) and
(b - mean) * gamma / sqrt(var + eps) + beta, as torch.fx's and torch.ao's conv-BN fusion passes
use it; reference runs F.conv2d then F.batch_norm(training=False) with the same statistics."""
import torch
import torch.nn.functional as F
from torch.nn.utils.fusion import fuse_conv_bn_weights

EPS = 1e-5


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3) / 3, torch.randn(3), torch.randn(3),
            torch.rand(3) + 0.5, torch.randn(3), torch.randn(3))


def reference(x, conv_w, conv_b, mean, var, gamma, beta):
    return F.batch_norm(F.conv2d(x, conv_w, conv_b), mean, var, gamma, beta, training=False, eps=EPS)


def folded(x, conv_w, conv_b, mean, var, gamma, beta, eps=EPS):
    w, b = fuse_conv_bn_weights(conv_w, conv_b, mean, var, eps, gamma, beta)
    return F.conv2d(x, w, b)


def production(x, conv_w, conv_b, mean, var, gamma, beta):
    return folded(x, conv_w, conv_b, mean, var, gamma, beta)
