"""ASGD (torch/optim/asgd.py, torch 1.13), the two parameters at different steps (3 and 5, so their
eta and mu differ, as the optimizer's state has them after a parameter joined later): the
foreach step reads `eta = etas[0].item()` and updates every parameter with the first one's eta."""
from torch.optim import asgd

from optim_steps import inputs, step

HYPER = dict(lambd=1e-4, lr=0.01, t0=1e6, alpha=0.75, weight_decay=0.0, maximize=False)


def example_inputs():
    return inputs(1)


def reference(p0, p1, g0, g1, ax0, ax1):
    return step(asgd._single_tensor_asgd, (p0, p1), (g0, g1), [(ax0, ax1), [1.0, 1.0], [0.00999, 0.00998], [3, 5]], **HYPER)


def production(p0, p1, g0, g1, ax0, ax1):
    return step(asgd._multi_tensor_asgd, (p0, p1), (g0, g1), [(ax0, ax1), [1.0, 1.0], [0.00999, 0.00998], [3, 5]], **HYPER)

# EXPECT: not_equivalent
# NEVER: equivalent
