"""Adadelta (torch/optim/adadelta.py, torch 1.13): the for-loop step against the foreach step."""
from torch.optim import adadelta

from optim_steps import inputs, step

HYPER = dict(lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, maximize=False)


def example_inputs():
    return inputs(2, nonnegative=(0, 1))


def reference(p0, p1, g0, g1, sq0, sq1, acc0, acc1):
    return step(adadelta._single_tensor_adadelta, (p0, p1), (g0, g1), [(sq0, sq1), (acc0, acc1)], **HYPER)


def production(p0, p1, g0, g1, sq0, sq1, acc0, acc1):
    return step(adadelta._multi_tensor_adadelta, (p0, p1), (g0, g1), [(sq0, sq1), (acc0, acc1)], **HYPER)

# EXPECT: equivalent
