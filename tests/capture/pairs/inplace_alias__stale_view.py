"""Planted bug: production reads the view of inplace_alias.py as if the in-place update had not
reached it (it computes 2x + x/2): refuted, as the out-of-place form would be."""
import torch

from inplace_alias import example_inputs, reference  # noqa: F401


def production(x):
    y = x.clone()
    v = y.view(12)
    y.mul_(2)
    return y + v.view(3, 4) / 4


# EXPECT: not_equivalent
