"""GELU (tanh approximation) MLP train step. Reference: autograd (gelu_backward, approximate
'tanh'). Production: the hand-derived derivative of 0.5 h (1 + tanh(k (h + 0.044715 h^3))).
A seed of tools/metamorphic (issue 18)."""
import torch
import torch.nn.functional as F

MODE = "train_step"
K_TANH = 0.7978845608028654        # sqrt(2 / pi)


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), (torch.randn(8, 16) / 3).requires_grad_(),
            (torch.randn(16, 8) / 4).requires_grad_(), torch.randn(4, 8))


def reference(x, w1, w2, c):
    return ((F.gelu(x @ w1, approximate="tanh") @ w2) * c).sum()


def production(x, w1, w2, c):
    h = x @ w1
    t = torch.tanh(K_TANH * (h + 0.044715 * (h * h * h)))
    a = 0.5 * h * (1 + t)
    loss = ((a @ w2) * c).sum()
    gw2 = a.t() @ c
    da = 0.5 * (1 + t) + 0.5 * h * (1 - t * t) * (K_TANH * (1 + 3 * 0.044715 * (h * h)))
    gh = (c @ w2.t()) * da
    gw1 = x.t() @ gh
    gx = gh @ w1.t()
    return loss, gx, gw1, gw2
