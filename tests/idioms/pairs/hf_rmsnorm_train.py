"""Llama's RMSNorm as HF transformers writes it (a float32 upcast on purpose, variance, rsqrt),
with its backward written by hand as Unsloth's kernel computes it, against autograd on the
formula written plainly.

Forward: huggingface/transformers src/transformers/models/llama/modeling_llama.py,
`LlamaRMSNorm.forward` (hidden_states.to(torch.float32), variance = pow(2).mean(-1, keepdim=True),
hidden_states * torch.rsqrt(variance + eps), weight * hidden_states.to(input_dtype)).
Backward: unslothai/unsloth unsloth/kernels/rms_layernorm.py, `_rms_layernorm_backward`
(dX = inv_var / n * (n * dY*W - normed * sum(dY*W * normed))), with the weight's gradient summed
over rows. The loss weights the output by an upstream gradient `dy`."""
import torch

MODE = "train_step"
EPS = 1e-6


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 8, requires_grad=True), (torch.rand(8) + 0.5).requires_grad_(), torch.randn(3, 8))


def reference(x, weight, dy):
    y = weight * x / torch.sqrt((x * x).mean(-1, keepdim=True) + EPS)
    return (y * dy).sum()


def production(x, weight, dy, eps=EPS):
    input_dtype = x.dtype
    hidden = x.to(torch.float32)
    variance = hidden.pow(2).mean(-1, keepdim=True)
    inv_var = torch.rsqrt(variance + eps)
    normed = hidden * inv_var
    y = weight * normed.to(input_dtype)
    loss = (y * dy).sum()
    n = x.shape[-1]
    dy_w = dy * weight
    dx = inv_var / n * (n * dy_w - normed * (dy_w * normed).sum(-1, keepdim=True))
    dweight = (dy * normed).sum(0)
    return loss, dx.to(input_dtype), dweight
