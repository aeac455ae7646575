"""RAdam (torch/optim/radam.py, torch 1.13) at step 10 (rectified): the for-loop step divides by
`exp_avg_sq.sqrt().add_(eps)`, the foreach step by `exp_avg_sq.sqrt()` alone, so an element whose
gradient has always been 0 (exp_avg_sq = 0) becomes NaN."""
from torch.optim import radam

from optim_steps import inputs, step

HYPER = dict(beta1=0.9, beta2=0.999, lr=1e-3, weight_decay=0.0, eps=1e-8)


def example_inputs():
    return inputs(2, nonnegative=(1,))


def reference(p0, p1, g0, g1, m0, m1, v0, v1):
    return step(radam._single_tensor_radam, (p0, p1), (g0, g1), [(m0, m1), (v0, v1), [9, 9]], **HYPER)


def production(p0, p1, g0, g1, m0, m1, v0, v1):
    return step(radam._multi_tensor_radam, (p0, p1), (g0, g1), [(m0, m1), (v0, v1), [9, 9]], **HYPER)

# EXPECT: not_equivalent
# NEVER: equivalent
