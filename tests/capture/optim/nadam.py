"""NAdam (torch/optim/nadam.py, torch 1.13) at step 4: the for-loop step computes
`mu_product_next = mu_product * mu * mu_next` after `mu_product *= mu`, counting mu twice; the
foreach step multiplies mu_product (already updated) by mu_next once."""
from torch.optim import nadam

from optim_steps import inputs, step

HYPER = dict(beta1=0.9, beta2=0.999, lr=2e-3, weight_decay=0.0, momentum_decay=4e-3, eps=1e-8)


def example_inputs():
    return inputs(2, nonnegative=(1,))


def reference(p0, p1, g0, g1, m0, m1, v0, v1):
    return step(nadam._single_tensor_nadam, (p0, p1), (g0, g1), [(m0, m1), (v0, v1), [0.8, 0.8], [3, 3]], **HYPER)


def production(p0, p1, g0, g1, m0, m1, v0, v1):
    return step(nadam._multi_tensor_nadam, (p0, p1), (g0, g1), [(m0, m1), (v0, v1), [0.8, 0.8], [3, 3]], **HYPER)

# EXPECT: not_equivalent
# NEVER: equivalent
