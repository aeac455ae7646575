"""nll_loss_decomposition_1_13.py with the targets declared in [0, 5) (ASSUME): ATen's
nll_loss_forward against torch 1.13's decomposition of it, proven on the declared range, the
verdict naming it as the user's assumption (Note [Declared input domains] in
src/verify/input_domains.h)."""
import torch
from torch._decomp import decompositions

N, C = 4, 5

# Note [Declared input domains]: the targets this code is ever called with.
ASSUME = {"target": "in [0, 5)"}


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(N, C).log_softmax(-1), torch.tensor([0, 3, 1, 4]))


def reference(logp, target):
    return torch.ops.aten.nll_loss_forward(logp, target, None, 1, -100)


def production(logp, target):
    return decompositions.nll_loss_forward(logp, target, None, 1, -100)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent real
# EXPECT-REASON: as you declared: %target is in [0, 5)
# TORCH-ONLY: 1.13 (torch 1.13's decomposition of nll_loss_forward returns one tensor; later releases return two, as the kernel does)
