"""Rprop (torch/optim/rprop.py, torch 1.13): the for-loop step against the foreach step."""
from torch.optim import rprop

from optim_steps import inputs, step

HYPER = dict(step_size_min=1e-6, step_size_max=50.0, etaminus=0.5, etaplus=1.2, maximize=False)


def example_inputs():
    return inputs(2, nonnegative=(1,))


def reference(p0, p1, g0, g1, prev0, prev1, size0, size1):
    return step(rprop._single_tensor_rprop, (p0, p1), (g0, g1), [(prev0, prev1), (size0, size1)], **HYPER)


def production(p0, p1, g0, g1, prev0, prev1, size0, size1):
    return step(rprop._multi_tensor_rprop, (p0, p1), (g0, g1), [(prev0, prev1), (size0, size1)], **HYPER)

# EXPECT: equivalent
