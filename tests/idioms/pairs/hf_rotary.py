"""Rotary position embedding as HF transformers applies it (rotate_half), against the rotation
written out per half.

Follows huggingface/transformers src/transformers/models/llama/modeling_llama.py, `rotate_half`
and `apply_rotary_pos_emb` (cos/sin of shape (seq, dim), the two halves of the head dimension
rotated as pairs (x_i, x_{i+d/2})). The rotation angles are an input (LlamaRotaryEmbedding's
position_ids times inv_freq), from which HF duplicates the frequencies, emb = cat(freqs, freqs)."""
import torch

MODE = "forward"


def example_inputs():
    torch.manual_seed(0)
    seq, dim = 4, 6
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    freqs = torch.outer(torch.arange(seq).float(), inv_freq)
    return torch.randn(2, 3, seq, dim), freqs


def reference(q, freqs):
    half = q.shape[-1] // 2
    q1, q2 = q[..., :half], q[..., half:]
    c, s = freqs.cos(), freqs.sin()
    return torch.cat((q1 * c - q2 * s, q2 * c + q1 * s), dim=-1)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def production(q, freqs, sign=1.0):
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    return (q * cos) + (rotate_half(q) * sign * sin)
