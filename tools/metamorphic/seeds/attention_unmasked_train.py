"""Unmasked attention train step, loss = sum(softmax(q k^T / sqrt(d)) v * c). Reference: autograd.
Production: explicit forward and the hand-derived backward. A seed of tools/metamorphic
(issue 18)."""
import math

import torch

MODE = "train_step"
H, T, DH = 2, 4, 4
SCALE = 1.0 / math.sqrt(DH)


def example_inputs():
    torch.manual_seed(0)
    return tuple(torch.randn(H, T, DH, requires_grad=True) for _ in range(3)) + (torch.randn(H, T, DH),)


def reference(q, k, v, c):
    p = torch.softmax((q @ k.transpose(-2, -1)) * SCALE, -1)
    return ((p @ v) * c).sum()


def production(q, k, v, c):
    s = (q @ k.transpose(-2, -1)) * SCALE
    p = torch.softmax(s, -1)
    loss = ((p @ v) * c).sum()
    gv = p.transpose(-2, -1) @ c
    gp = c @ v.transpose(-2, -1)
    gs = p * (gp - (gp * p).sum(-1, keepdim=True)) * SCALE
    gq = gs @ k
    gk = gs.transpose(-2, -1) @ q
    return loss, gq, gk, gv
