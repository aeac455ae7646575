"""Adam (torch/optim/adam.py, torch 1.13) at step 4: the for-loop step against the foreach step."""
from torch.optim import adam

from optim_steps import inputs, step

HYPER = dict(amsgrad=False, beta1=0.9, beta2=0.999, lr=1e-3, weight_decay=0.0, eps=1e-8, maximize=False,
             capturable=False, differentiable=False, grad_scale=None, found_inf=None)


def example_inputs():
    return inputs(2, nonnegative=(1,))


def reference(p0, p1, g0, g1, m0, m1, v0, v1, weight_decay=0.0):
    return step(adam._single_tensor_adam, (p0, p1), (g0, g1), [(m0, m1), (v0, v1), [], [3, 3]],
                **dict(HYPER, weight_decay=weight_decay))


def production(p0, p1, g0, g1, m0, m1, v0, v1, weight_decay=0.0):
    return step(adam._multi_tensor_adam, (p0, p1), (g0, g1), [(m0, m1), (v0, v1), [], [3, 3]],
                **dict(HYPER, weight_decay=weight_decay))

# EXPECT: equivalent
