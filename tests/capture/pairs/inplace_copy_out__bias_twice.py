"""Planted bug in inplace_copy_out.py's production: the bias is added twice."""
import torch
from inplace_copy_out import example_inputs, reference  # noqa: F401


def production(x, w, b):
    buf = torch.empty(3, 5)
    torch.addmm(b, x, w, out=buf)
    buf.add_(b)
    out = torch.empty(3, 5, dtype=torch.float64)
    out.copy_(buf)
    acc = torch.empty(0)
    torch.sum(buf, 0, out=acc)
    z = x.new_empty(3, 5)
    z.zero_()
    z.add_(acc)
    return out, z


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
