"""Adagrad (torch/optim/adagrad.py, torch 1.13) at step 4: the for-loop step against the foreach step."""
from torch.optim import adagrad

from optim_steps import inputs, step

HYPER = dict(lr=0.01, weight_decay=0.0, lr_decay=0.0, eps=1e-10, has_sparse_grad=False, maximize=False)


def example_inputs():
    return inputs(1, nonnegative=(0,))


def reference(p0, p1, g0, g1, s0, s1):
    return step(adagrad._single_tensor_adagrad, (p0, p1), (g0, g1), [(s0, s1), [3, 3]], **HYPER)


def production(p0, p1, g0, g1, s0, s1):
    return step(adagrad._multi_tensor_adagrad, (p0, p1), (g0, g1), [(s0, s1), [3, 3]], **HYPER)

# EXPECT: equivalent
