"""SGD with momentum (torch/optim/sgd.py, torch 1.13): the for-loop step against the foreach
step. Both compute buf = momentum * buf + g, p = p - lr * buf."""
from torch.optim import sgd

from optim_steps import inputs, step

HYPER = dict(weight_decay=0.0, momentum=0.9, lr=0.01, dampening=0.0, nesterov=False, maximize=False, has_sparse_grad=False)


def example_inputs():
    return inputs(1)


def reference(p0, p1, g0, g1, buf0, buf1, nesterov=False):
    return step(sgd._single_tensor_sgd, (p0, p1), (g0, g1), [(buf0, buf1)],
                **dict(HYPER, nesterov=nesterov))


def production(p0, p1, g0, g1, buf0, buf1, nesterov=False):
    return step(sgd._multi_tensor_sgd, (p0, p1), (g0, g1), [(buf0, buf1)],
                **dict(HYPER, nesterov=nesterov))

# EXPECT: equivalent
