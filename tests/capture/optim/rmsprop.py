"""RMSprop (torch/optim/rmsprop.py, torch 1.13), centered, with momentum: the for-loop step against
the foreach step."""
from torch.optim import rmsprop

from optim_steps import inputs, step

HYPER = dict(lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.9, centered=True, maximize=False,
             differentiable=False)


def example_inputs():
    return inputs(3, nonnegative=(0,))


def reference(p0, p1, g0, g1, sq0, sq1, gavg0, gavg1, buf0, buf1):
    return step(rmsprop._single_tensor_rmsprop, (p0, p1), (g0, g1), [(sq0, sq1), (gavg0, gavg1), (buf0, buf1)], **HYPER)


def production(p0, p1, g0, g1, sq0, sq1, gavg0, gavg1, buf0, buf1):
    return step(rmsprop._multi_tensor_rmsprop, (p0, p1), (g0, g1), [(sq0, sq1), (gavg0, gavg1), (buf0, buf1)], **HYPER)

# EXPECT: equivalent
