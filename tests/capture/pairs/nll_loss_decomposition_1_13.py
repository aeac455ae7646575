"""nll_loss against torch 1.13's decomposition of it. Reference: ATen's nll_loss_forward (mean,
ignore_index -100), which skips a target equal to ignore_index. Production: torch 1.13's
torch/_decomp/decompositions.py nll_loss_forward, called as it is: with ignore_index < 0 it
gathers at the raw target (raising at -100) and averages over every row. The gather is
production's, so no range is assumed from it (Note [Reference kernel domains] in
src/verify/input_domains.h): refuted at ignore_index. nll_loss_decomposition_1_13_declared.py
declares the targets in [0, 5) and is proven."""
import torch
from torch._decomp import decompositions

N, C = 4, 5


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(N, C).log_softmax(-1), torch.tensor([0, 3, 1, 4]))


def reference(logp, target):
    return torch.ops.aten.nll_loss_forward(logp, target, None, 1, -100)


def production(logp, target):
    return decompositions.nll_loss_forward(logp, target, None, 1, -100)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-REASON: production raises where the reference computes a value
# TORCH-ONLY: 1.13 (torch 1.13's decomposition of nll_loss_forward returns one tensor; later releases return two, as the kernel does)
