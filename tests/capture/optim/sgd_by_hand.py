"""SGD with momentum and weight decay written by hand, against torch.optim._functional.sgd (torch
1.13, the for-loop form it calls by default: `d_p = g.add(p, alpha=wd)`, `buf.mul_(momentum).add_(d_p,
alpha=1 - dampening)`, `p.add_(buf, alpha=-lr)`). The hand-written step scales by multiplication,
the reference through `alpha` (a fused multiply-add in ATen): equal over the reals."""
import torch
from torch.optim import _functional

LR, MOMENTUM, WD = 0.01, 0.9, 1e-4


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 3), torch.randn(4, 3), torch.randn(4, 3))


def reference(p, g, buf):
    p, buf = p.clone(), buf.clone()
    _functional.sgd([p], [g], [buf], weight_decay=WD, momentum=MOMENTUM, lr=LR, dampening=0.0,
                    nesterov=False, maximize=False)
    return p, buf


def production(p, g, buf):
    d_p = g + WD * p
    buf = MOMENTUM * buf + d_p
    return p - LR * buf, buf


# EXPECT: equivalent real
