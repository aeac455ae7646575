"""Adamax (torch/optim/adamax.py, torch 1.13) at step 4: the for-loop step against the foreach step."""
from torch.optim import adamax

from optim_steps import inputs, step

HYPER = dict(eps=1e-8, beta1=0.9, beta2=0.999, lr=2e-3, weight_decay=0.0, maximize=False)


def example_inputs():
    return inputs(2, nonnegative=(1,))


def reference(p0, p1, g0, g1, m0, m1, u0, u1):
    return step(adamax._single_tensor_adamax, (p0, p1), (g0, g1), [(m0, m1), (u0, u1), [3, 3]], **HYPER)


def production(p0, p1, g0, g1, m0, m1, u0, u1):
    return step(adamax._multi_tensor_adamax, (p0, p1), (g0, g1), [(m0, m1), (u0, u1), [3, 3]], **HYPER)

# EXPECT: equivalent
