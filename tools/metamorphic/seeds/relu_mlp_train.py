"""ReLU MLP train step, loss = sum(relu(x @ w1 + b1) @ w2 * c). Reference: autograd
(threshold_backward). Production: explicit backward with the derivative as a comparison mask.
A seed of tools/metamorphic (issue 18)."""
import torch

MODE = "train_step"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), (torch.randn(8, 16) / 3).requires_grad_(),
            (0.1 * torch.randn(16)).requires_grad_(), (torch.randn(16, 8) / 4).requires_grad_(),
            torch.randn(4, 8))


def reference(x, w1, b1, w2, c):
    return ((torch.relu(x @ w1 + b1) @ w2) * c).sum()


def production(x, w1, b1, w2, c):
    h = x @ w1 + b1
    a = torch.relu(h)
    loss = ((a @ w2) * c).sum()
    gw2 = a.t() @ c
    gh = (c @ w2.t()) * (h > 0).to(h.dtype)
    gw1 = x.t() @ gh
    gb1 = gh.sum(0)
    gx = gh @ w1.t()
    return loss, gx, gw1, gb1, gw2
