"""Forward-mode pair: ops returning a list of tensors (split, chunk, unbind) and dropout in
eval mode or with p=0 (deterministic: the identity), against slices and the plain tensor."""
import torch
import torch.nn.functional as F

MODE = "forward"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(6, 4),)


def reference(x):
    a, b = torch.split(x, [2, 4])
    c, d = x.chunk(2, dim=1)
    rows = x.unbind(0)
    y = F.dropout(F.dropout(x, p=0.3, training=False), p=0.0, training=True)
    return b * 2.0, d + 1.0, rows[5], y


def production(x):
    return x[2:] * 2.0, x[:, 2:] + 1.0, x[5], x


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent bitwise
