"""RMSNorm train step. Reference: plain autograd (rsqrt backward as -0.5 * rstd^3, the mean's
backward as an expand divided by D). Production: the hand-derived backward
gx = rstd * (gxhat - xhat * mean(gxhat * xhat)), gw = sum(g * xhat)."""
import math

import torch
import torch.nn.functional as F

MODE = "train_step"

EPS = 1e-6


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), (1 + 0.1 * torch.randn(8)).requires_grad_(),
            torch.randn(4, 8))


def reference(x, w, c):
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w
    return (y * c).sum()


def production(x, w, c, bug="none"):
    # bug: the planted bug of a variant (rmsnorm_train__BUG.py), "none" here. eps: epsilon off by 1e-6
    # (forward and backward); tiny_term: an extra 1e-7 * w in the weight gradient.
    eps = EPS + 1e-6 if bug == "eps" else EPS
    rstd = torch.rsqrt((x * x).mean(-1, keepdim=True) + eps)
    xhat = x * rstd
    loss = (xhat * w * c).sum()
    gw = (c * xhat).sum(0)
    if bug == "tiny_term":
        gw = gw + 1e-7 * w
    gxhat = c * w
    gx = rstd * (gxhat - xhat * (gxhat * xhat).mean(-1, keepdim=True))
    return loss, gx, gw


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent real
