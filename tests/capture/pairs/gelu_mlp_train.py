"""GELU MLP train step, loss = sum(gelu(x @ w1) @ w2 * c). Reference: plain autograd (the graph
holds gelu_backward). Production: the hand-derived backward
gelu'(h) = 0.5 * (1 + erf(h / sqrt 2)) + h * exp(-h^2 / 2) / sqrt(2 pi), with PyTorch's
double constants for 1/sqrt(2) and 1/sqrt(2 pi)."""
import math

import torch
import torch.nn.functional as F

MODE = "train_step"

SQRT1_2 = 0.7071067811865476      # M_SQRT1_2, as PyTorch's kernels use it
INV_SQRT_2PI = 0.3989422804014327  # M_2_SQRTPI * M_SQRT1_2 * 0.5
K_TANH = 0.7978845608028654        # sqrt(2 / pi)


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), (torch.randn(8, 16) / 3).requires_grad_(),
            (torch.randn(16, 8) / 4).requires_grad_(), torch.randn(4, 8))


def reference(x, w1, w2, c):
    return ((F.gelu(x @ w1) @ w2) * c).sum()


def gelu_grad(h, bug):
    if bug == "tanh_derivative":
        t = torch.tanh(K_TANH * (h + 0.044715 * h * h * h))
        return 0.5 * (1 + t) + 0.5 * h * (1 - t * t) * K_TANH * (1 + 0.134145 * h * h)
    return 0.5 * (1 + torch.erf(h * SQRT1_2)) + h * (torch.exp(-0.5 * (h * h)) * INV_SQRT_2PI)


def production(x, w1, w2, c, bug="none"):
    # bug: the planted bug of a variant (gelu_mlp_train__BUG.py), "none" here. tiny_term: an extra
    # 1e-7 * w1 in the first weight's gradient; tanh_derivative: production differentiates the tanh
    # approximation of GELU.
    h = x @ w1
    a = F.gelu(h)
    loss = ((a @ w2) * c).sum()
    gw2 = a.t() @ c
    gh = (c @ w2.t()) * gelu_grad(h, bug)
    gw1 = x.t() @ gh
    if bug == "tiny_term":
        gw1 = gw1 + 1e-7 * w1
    gx = gh @ w1.t()
    return loss, gx, gw1, gw2


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent real
