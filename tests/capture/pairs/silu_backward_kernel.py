"""aten::silu_backward as eager execution runs it (its CPU kernel) against torch._decomp's
decomposition of it. make_fx used to trace the op's CompositeImplicitAutograd form instead, so
the two graphs were identical and called equal bit for bit, while the kernel and the
decomposition round differently (Note [Kernels eager execution runs]). Now the op is one node,
expanded through its definition at level real."""
import torch


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 5), torch.randn(3, 5))


def reference(g, x):
    return torch.ops.aten.silu_backward.default(g, x)


def production(g, x):
    return torch._decomp.decomposition_table[torch.ops.aten.silu_backward.default](g, x)


# EXPECT: equivalent real
