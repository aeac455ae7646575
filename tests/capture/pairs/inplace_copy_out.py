"""copy_ (broadcasting, dtype conversion), zero_, fill_ and out= variants, as production code
writes buffers: captured functionalized (Note [Functionalized capture]) and decided like the
out-of-place form."""
import torch


def example_inputs():
    return (torch.randn(3, 4), torch.randn(4, 5), torch.randn(5))


def reference(x, w, b):
    y = x.mm(w) + b
    return y.double(), torch.zeros(3, 5) + y.sum(0)


def production(x, w, b):
    buf = torch.empty(3, 5)
    torch.mm(x, w, out=buf)
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
# EXPECT: equivalent
