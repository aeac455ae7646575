"""Megatron-LM's fused bias-GELU: its forward under autograd against its hand-written backward.

Follows NVIDIA/Megatron-LM megatron/core/fusions/fused_bias_gelu.py: bias_gelu (the tanh
approximation with the constants 0.79788456 and 0.044715) and bias_gelu_back, whose constant
0.1070322243 is sqrt(2/pi) * 3 * 0.044715 rounded (the forward's constants give
0.10703222430124...: 1.1e-11 apart, within float32 rounding). GeLUFunction.backward returns the
same tensor for input and bias; the bias is broadcast over rows, so its gradient is summed here."""
import torch

MODE = "train_step"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), (torch.randn(8) / 2).requires_grad_(), torch.randn(4, 8))


def bias_gelu(bias, y):
    x = bias + y
    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))


def bias_gelu_back(g, bias, y, slope=0.1070322243):
    x = bias + y
    tanh_out = torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x))
    ff = 0.5 * x * ((1 - tanh_out * tanh_out) * (0.79788456 + slope * x * x)) + 0.5 * (1 + tanh_out)
    return ff * g


def reference(y, bias, c):
    return (bias_gelu(bias, y) * c).sum()


def production(y, bias, c, slope=0.1070322243):
    loss = (bias_gelu(bias, y) * c).sum()
    tmp = bias_gelu_back(c, bias, y, slope)
    return loss, tmp, tmp.sum(0)
