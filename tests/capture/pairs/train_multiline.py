"""train_step pair whose reference spans several lines, to check that backward nodes get the
line of the forward op they differentiate."""
import torch

MODE = "train_step"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(5, 6), torch.randn(6, 4, requires_grad=True),
            torch.randn(4, requires_grad=True))


def reference(x, w, b):
    h = x @ w                      # mm; backward: t, mm
    a = torch.tanh(h + b)          # add, tanh; backward: tanh_backward, sum, view
    return (a * a).sum()           # mul, sum; backward: ones_like, expand, mul, add


def production(x, w, b):
    h = x @ w
    a = torch.tanh(h + b)
    loss = (a * a).sum()
    ga = 2 * a
    gpre = ga * (1 - a * a)
    gw = x.t() @ gpre
    gb = gpre.sum(0)
    return loss, gw, gb


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent real
