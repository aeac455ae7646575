"""Conv + batch norm (eval) against the convolution with the batch norm folded into its weights
by torch's own torch.nn.utils.fusion.fuse_conv_bn_weights, which returns nn.Parameter(...)s
(issue 34, seen 2). make_fx records such a parameter as a constant holding its example-time
values, so the graphs differ on other inputs (an all-zero input: the graph gives the folded bias
of the examples, the code 0 on both sides) while the code is equivalent. Whatever the capture
does with the parameter, the output must never be not_equivalent: a refutation of the graphs that
the code does not show is unknown, "the capture is not the code that runs". (The capture now
traces through the parameter, issue 34's item 3, and the pair is decided on its graphs; the NEVER
line stays.)"""
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


# The capture traces through the parameter (Note [Nothing computed from the inputs is frozen]);
# the graphs are decided as written. The fold (no padding) is proven by the normal forms compared
# element by element (Note [Normal forms element by element]): batch norm's sqrt and division
# against the fold's rsqrt, which Z3 over the reals could not show at a symbolic element.
# EXPECT: equivalent real
# NEVER: not_equivalent
