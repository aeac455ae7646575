"""Conv + batch norm (eval) against the convolution with the batch norm folded into its weights
by torch's own torch.nn.utils.fusion.fuse_conv_bn_weights, which returns nn.Parameter(...)s
(issue 34, seen 2). make_fx records such a parameter as a constant holding its example-time
values, so the graphs differ on other inputs (an all-zero input: the graph gives the folded bias
of the examples, the code 0 on both sides) while the code is equivalent. Whatever the capture
does with the parameter, the output must never be not_equivalent: a refutation of the graphs that
the code does not show is unknown, "the capture is not the code that runs". (Once the capture
traces through the parameter, issue 34's item 3, the pair is decided on its graphs and its
EXPECT line changes; the NEVER line stays.)"""
import torch
import torch.nn.functional as F
from torch.nn.utils.fusion import fuse_conv_bn_weights

EPS = 1e-5


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 2, 5, 5), torch.randn(3, 2, 3, 3), torch.randn(3), torch.randn(3),
            torch.rand(3) + 0.5, torch.randn(3), torch.randn(3))


def reference(x, conv_w, conv_b, bn_mean, bn_var, bn_w, bn_b):
    y = F.conv2d(x, conv_w, conv_b)
    return F.batch_norm(y, bn_mean, bn_var, bn_w, bn_b, training=False, eps=EPS)


def production(x, conv_w, conv_b, bn_mean, bn_var, bn_w, bn_b):
    w, b = fuse_conv_bn_weights(conv_w, conv_b, bn_mean, bn_var, EPS, bn_w, bn_b)
    return F.conv2d(x, w, b)


# The capture now traces through the parameter (Note [Nothing computed from the inputs is frozen]);
# the graphs are decided as written, and this fold (no padding) is not proven yet: Z3 finds a model
# over the reals where batch norm's sqrt and division meet the fold's rsqrt (a prover gap, not a bug).
# EXPECT: unknown
# EXPECT-REASON: not proven
# NEVER: not_equivalent
