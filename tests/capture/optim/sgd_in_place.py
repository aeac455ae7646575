"""An optimizer step as it is written: it updates the parameter and the momentum buffer in place and
returns nothing (issue 36 item 7: before, a pair had to clone and return them, as sgd_by_hand.py
does). The reference is torch.optim._functional.sgd (torch 1.13's for-loop form), the production a
hand-written step with `mul_`/`add_`; the updated inputs are the outputs p__updated, buf__updated."""
import torch
from torch.optim import _functional

LR, MOMENTUM, WD = 0.01, 0.9, 1e-4


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 3), torch.randn(4, 3), torch.randn(4, 3))


def reference(p, g, buf):
    _functional.sgd([p], [g], [buf], weight_decay=WD, momentum=MOMENTUM, lr=LR, dampening=0.0,
                    nesterov=False, maximize=False)


def production(p, g, buf):
    d_p = g + WD * p
    buf.mul_(MOMENTUM).add_(d_p)
    p.sub_(LR * buf)


# EXPECT: equivalent real
