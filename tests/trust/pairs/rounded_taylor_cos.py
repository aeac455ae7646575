"""A train step whose backward writes a constant another way: 1/24 against 0.041666666666666664.

The fourth-order Taylor polynomial of cos (as polynomial activations and the small-angle paths of
rotary-embedding code write it): reference x**4 / 24 under autograd (which divides by 24);
production multiplies by the double nearest 1/24, 0.041666666666666664, in its forward and its
hand-written backward. Over the reals the two differ by the rounding of that one constant."""
import torch

MODE = "train_step"


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(4, 8, requires_grad=True), torch.randn(4, 8)


def reference(x, c):
    return ((1 - x ** 2 / 2 + x ** 4 / 24) * c).sum()


def production(x, c, power_factor=4):
    loss = ((1 - x * x * 0.5 + x * x * x * x * 0.041666666666666664) * c).sum()
    grad = (-x + power_factor * x * x * x * 0.041666666666666664) * c
    return loss, grad
