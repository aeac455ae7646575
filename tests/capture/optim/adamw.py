"""AdamW (torch/optim/adamw.py, torch 1.13) at step 4, decoupled weight decay: the for-loop step
against the foreach step."""
from torch.optim import adamw

from optim_steps import inputs, step

HYPER = dict(amsgrad=False, beta1=0.9, beta2=0.999, lr=1e-3, weight_decay=0.01, eps=1e-8, maximize=False,
             capturable=False)


def example_inputs():
    return inputs(2, nonnegative=(1,))


def reference(p0, p1, g0, g1, m0, m1, v0, v1):
    return step(adamw._single_tensor_adamw, (p0, p1), (g0, g1), [(m0, m1), (v0, v1), [], [3, 3]], **HYPER)


def production(p0, p1, g0, g1, m0, m1, v0, v1):
    return step(adamw._multi_tensor_adamw, (p0, p1), (g0, g1), [(m0, m1), (v0, v1), [], [3, 3]], **HYPER)

# EXPECT: equivalent
