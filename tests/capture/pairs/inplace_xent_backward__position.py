"""Planted bug: the in-place cross-entropy backward of inplace_xent_backward.py computes the flat
positions with row stride C-1 instead of C (`arange(N) * (C - 1) + target`): it decrements the
wrong elements, and two rows' positions can meet (row 0's target C-1 and row 1's target 0), where
index_put leaves the element unspecified (Note [index_put semantics])."""
import torch

from inplace_xent_backward import C, N, example_inputs, reference  # noqa: F401


def production(logits, target):
    g = torch.softmax(logits, -1)
    g2 = g.view(-1)
    idx = torch.arange(N) * (C - 1) + target
    g2[idx] -= 1.0
    g.mul_(1.0 / N)
    return g


# EXPECT: not_equivalent
