"""SwiGLU MLP train step, loss = sum((silu(x @ wg) * (x @ wu)) @ wd * c). Reference: plain
autograd (silu_backward). Production: the hand-derived backward
d silu(g) = s * (1 + g * (1 - s)), s = sigmoid(g)."""
import math

import torch
import torch.nn.functional as F

MODE = "train_step"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), (torch.randn(8, 16) / 3).requires_grad_(),
            (torch.randn(8, 16) / 3).requires_grad_(), (torch.randn(16, 8) / 4).requires_grad_(),
            torch.randn(4, 8))


def reference(x, wg, wu, wd, c):
    return ((F.silu(x @ wg) * (x @ wu)) @ wd * c).sum()


def production(x, wg, wu, wd, c, bug="none"):
    # bug: the planted bug of a variant (swiglu_mlp_train__BUG.py), "none" here. tiny_term: an extra
    # 1e-7 * wu in the up projection's gradient; dropped_term: production drops the g * (1 - s) term
    # of the silu derivative.
    g, u = x @ wg, x @ wu
    s = torch.sigmoid(g)
    m = g * s * u
    loss = (m @ wd * c).sum()
    gwd = m.t() @ c
    gm = c @ wd.t()
    dsilu = s if bug == "dropped_term" else s * (1 + g * (1 - s))
    gg = gm * u * dsilu
    gu = gm * g * s
    gwg, gwu = x.t() @ gg, x.t() @ gu
    if bug == "tiny_term":
        gwu = gwu + 1e-7 * wu
    gx = gg @ wg.t() + gu @ wu.t()
    return loss, gx, gwg, gwu, gwd


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent real
