"""Attention train step with a boolean mask input (True: the key is hidden from the query), loss =
sum(softmax(masked_fill(q k^T / sqrt(d), mask, -inf)) v * c). Reference: autograd. Production:
explicit forward and the hand-derived backward, which does not mask the gradient again (p is 0
where the mask holds). The example mask keeps the diagonal, so no row is fully masked. A seed of
tools/metamorphic (issue 18)."""
import math

import torch

MODE = "train_step"
H, T, DH = 2, 4, 4
SCALE = 1.0 / math.sqrt(DH)


def example_inputs():
    torch.manual_seed(0)
    mask = (torch.rand(T, T) < 0.4) & ~torch.eye(T, dtype=torch.bool)
    return tuple(torch.randn(H, T, DH, requires_grad=True) for _ in range(3)) + (torch.randn(H, T, DH), mask)


def reference(q, k, v, c, mask):
    s = (q @ k.transpose(-2, -1)) * SCALE
    p = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
    return ((p @ v) * c).sum()


def production(q, k, v, c, mask):
    s = (q @ k.transpose(-2, -1)) * SCALE
    p = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
    loss = ((p @ v) * c).sum()
    gv = p.transpose(-2, -1) @ c
    gp = c @ v.transpose(-2, -1)
    gs = p * (gp - (gp * p).sum(-1, keepdim=True)) * SCALE
    gq = gs @ k
    gk = gs.transpose(-2, -1) @ q
    return loss, gq, gk, gv
