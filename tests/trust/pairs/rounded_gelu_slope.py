"""A train step through the tanh-GELU's derivative whose backward writes GELU's
0.16054833661335055 (4.5 * sqrt(2/pi) * 0.044715) as one literal, where autograd computes it as
3 * (1.5 * sqrt(2/pi) * 0.044715): the same real constant rounded two ways.

The forward is the derivative of the tanh approximation (Megatron's bias_gelu_back in
megatron/core/fusions/fused_bias_gelu.py, PyTorch's gelu_backward with approximate='tanh'),
gelu'(x) = 0.5 (1 + t) + (1 - t^2)(0.5 c x + 1.5 c k x^3), t = tanh(c x + c k x^3),
c = sqrt(2/pi), k = 0.044715, as a gradient penalty or a double backward differentiates it;
production writes the second derivative out."""
import math

import torch

MODE = "train_step"
C = math.sqrt(2 / math.pi)
K = 0.044715


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(4, 8, requires_grad=True), torch.randn(4, 8)


def gelu_slope(x):
    t = torch.tanh(C * x + C * K * x ** 3)
    return 0.5 * (1 + t) + (1 - t * t) * (0.5 * C * x + 1.5 * C * K * x ** 3)


def reference(x, g):
    return (gelu_slope(x) * g).sum()


def production(x, g, cubic=0.16054833661335055):
    t = torch.tanh(C * x + C * K * x ** 3)
    dt = (1 - t * t) * C * (1 + 3 * K * x * x)
    poly = 0.5 * C * x + 1.5 * C * K * x ** 3
    second = 0.5 * dt - 2 * t * dt * poly + (1 - t * t) * (0.5 * C + cubic * x * x)
    loss = (gelu_slope(x) * g).sum()
    return loss, second * g
