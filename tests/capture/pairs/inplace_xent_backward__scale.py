"""Planted bug: the in-place cross-entropy backward of inplace_xent_backward.py scales by
1/(N-1) instead of 1/N."""
import torch

from inplace_xent_backward import C, N, example_inputs, reference  # noqa: F401


def production(logits, target):
    g = torch.softmax(logits, -1)
    g2 = g.view(-1)
    idx = torch.arange(N) * C + target
    g2[idx] -= 1.0
    g.mul_(1.0 / (N - 1))
    return g


# EXPECT: not_equivalent
