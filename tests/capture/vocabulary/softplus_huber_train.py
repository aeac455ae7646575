"""A regression head's train step: loss = huber(softplus(x @ w), t) with delta 0.5, mean reduction.
Reference: plain autograd (the joint graph holds softplus_backward and huber_loss_backward, read
through their torch 1.13 decompositions: fusions/decompositions.tvir). Production: the backward
derived by hand, as a fused kernel's reference would write it."""
import torch
import torch.nn.functional as F

MODE = "train_step"
DELTA = 0.5


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 6, requires_grad=True), (torch.randn(6, 3) / 2).requires_grad_(), torch.randn(4, 3))


def reference(x, w, t):
    return F.huber_loss(F.softplus(x @ w), t, delta=DELTA)


def production(x, w, t, bug=None):
    h = x @ w
    z = torch.exp(h)
    s = torch.where(h > 20.0, h, torch.log1p(z))
    d = s - t
    loss = torch.where(d.abs() < DELTA, 0.5 * d * d, DELTA * (d.abs() - 0.5 * DELTA)).mean()
    n = d.numel()
    gs = torch.where(d < -DELTA, -DELTA / n, torch.where(d > DELTA, DELTA / n, d / n))  # d huber / d s, mean
    ds = 1 / (z + 1) if bug == "sigmoid_grad" else z / (z + 1)  # d softplus / d h = sigmoid(h)
    gh = torch.where(h > 20.0, gs, gs * ds)
    return loss, gh @ w.t(), x.t() @ gh
