"""An in-place op whose input is read again afterwards, through a view: captured functionalized
(Note [Functionalized capture]) and decided like its out-of-place form (2x + 2x/2 = 3x)."""
import torch


def example_inputs():
    return (torch.randn(3, 4),)


def reference(x):
    return x * 2 + x


def production(x):
    y = x.clone()
    v = y.view(12)
    y.mul_(2)
    return y + v.view(3, 4) / 2


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent
