"""conv_bn_fold.py through modules, as torch.ao.quantization.fuse_modules and torch.fx's
`fuse` pass do it: a Conv2d and an eval-mode BatchNorm2d built from the inputs (their weights
`nn.Parameter`s wrapping them), folded by torch's own `torch.nn.utils.fusion.fuse_conv_bn_eval`,
which deep-copies the convolution (its Parameter's `__deepcopy__` goes through `.data`) and assigns
the folded Parameters to it. Every one of those wraps is traced through (Note [Nothing computed
from the inputs is frozen])."""
import torch
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

from conv_bn_fold import EPS, example_inputs, reference  # noqa: F401


def production(x, w, b, mean, var, gamma, beta):
    conv = nn.Conv2d(3, 4, 3, padding=1)
    conv.weight, conv.bias = nn.Parameter(w), nn.Parameter(b)
    bn = nn.BatchNorm2d(4, eps=EPS)
    bn.weight, bn.bias = nn.Parameter(gamma), nn.Parameter(beta)
    bn.running_mean, bn.running_var = mean, var
    return fuse_conv_bn_eval(conv.eval(), bn.eval())(x)
