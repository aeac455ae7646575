"""Autocast-like mixed precision: attention whose matmuls take bfloat16 inputs and accumulate in
float32, with the softmax in float32, against the same attention in float32.

What torch.autocast does to q k^T and p v on a GPU with bf16 tensor cores (operands rounded to
bf16, products accumulated in f32), written out on the CPU: inputs cast with .to(torch.bfloat16)
and back to float32 before the matmul; softmax(..., dtype=torch.float32) as the Megatron and
HuggingFace attention code calls it. The casts narrow precision on purpose: the outputs agree up
to bf16 rounding (about 1e-2), far beyond float32's."""
import torch


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(2, 4, 8), torch.randn(2, 4, 8), torch.randn(2, 4, 8)


def reference(q, k, v):
    scores = q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5
    return torch.softmax(scores, dim=-1) @ v


def autocast_attention(q, k, v, softmax_dim=-1):
    def bf16(t):  # an operand as a bf16 tensor core reads it
        return t.to(torch.bfloat16).to(torch.float32)

    scores = bf16(q) @ bf16(k).transpose(-1, -2) * q.shape[-1] ** -0.5
    p = torch.softmax(scores, dim=softmax_dim, dtype=torch.float32)
    return bf16(p) @ bf16(v)


def production(q, k, v):
    return autocast_attention(q, k, v)
