"""Causal attention train step, loss = sum(attention(q, k, v) * c). Reference: plain autograd
(masked_fill with -inf, softmax, matmuls). Production: explicit forward and the hand-derived
backward gs = p * (gp - sum(gp * p)) * scale, which does not mask the gradient again (p is 0
where the mask holds)."""
import math

import torch
import torch.nn.functional as F

MODE = "train_step"

H, T, DH = 2, 4, 4
SCALE = 1.0 / math.sqrt(DH)


def example_inputs():
    torch.manual_seed(0)
    return tuple(torch.randn(H, T, DH, requires_grad=True) for _ in range(3)) + (torch.randn(H, T, DH),)


def reference(q, k, v, c):
    s = (q @ k.transpose(-2, -1)) * SCALE
    mask = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).triu(1)
    p = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
    return ((p @ v) * c).sum()


def production(q, k, v, c, bug="none"):
    # bug: the planted bug of a variant (causal_attention_train__BUG.py), "none" here. tiny_term: an
    # extra 1e-7 * k in the key gradient; mask_diagonal: production's mask also hides the diagonal
    # (triu(0) instead of triu(1)).
    mask = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool).triu(0 if bug == "mask_diagonal" else 1)
    s = (q @ k.transpose(-2, -1)) * SCALE
    p = torch.softmax(s.masked_fill(mask, float("-inf")), -1)
    o = p @ v
    loss = (o * c).sum()
    gv = p.transpose(-2, -1) @ c
    gp = c @ v.transpose(-2, -1)
    gs = p * (gp - (gp * p).sum(-1, keepdim=True)) * SCALE
    gq = gs @ k
    gk = gs.transpose(-2, -1) @ q
    if bug == "tiny_term":
        gk = gk + 1e-7 * k
    return loss, gq, gk, gv


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent real
