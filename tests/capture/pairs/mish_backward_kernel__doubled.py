"""Planted bug: production's mish backward is twice the kernel's (mish_backward_kernel.py).
torchtv cannot decide aten::mish_backward from the graphs, but running both functions shows a
difference that is not rounding (it stays in float64): refuted by running the code
(Note [Cross-checks])."""
import torch

from mish_backward_kernel import example_inputs, reference  # noqa: F401


def production(g, x):
    return 2 * torch._decomp.decomposition_table[torch.ops.aten.mish_backward.default](g, x)


# EXPECT: not_equivalent
# EXPECT-REASON: replayed through LibTorch
