"""Meta Llama's rotary embedding (complex) against HF's rotate_half form, with HF's conversion
permutation of the q projection.

Reference follows meta-llama/llama llama/model.py: precompute_freqs_cis (torch.polar of ones and
the outer product of positions and inverse frequencies), reshape_for_broadcast and
apply_rotary_emb (view_as_complex of adjacent pairs, a complex multiply, view_as_real, flatten).
Production follows HF transformers' modeling_llama.py: rotate_half and apply_rotary_pos_emb
(q * cos + rotate_half(q) * sin, cos and sin of cat(freqs, freqs)), on q projected with the weight
that convert_llama_weights_to_hf.py's permute() gives (each head's rows reordered from
interleaved pairs to halves); its output is put back in Meta's layout by the inverse reordering.
Over the reals the two are equal (design: docs/complex.md)."""
import torch

# EXPECT: equivalent real
# NEVER: not_equivalent

HEADS, HEAD_DIM, SEQ = 2, 4, 3
DIM = HEADS * HEAD_DIM


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, SEQ, DIM), torch.randn(DIM, DIM))


def inv_freq():
    return 1.0 / (10000.0 ** (torch.arange(0, HEAD_DIM, 2)[: HEAD_DIM // 2].float() / HEAD_DIM))


def precompute_freqs_cis():
    freqs = torch.outer(torch.arange(SEQ).float(), inv_freq())
    return torch.polar(torch.ones_like(freqs), freqs)


def reference(x, wq):
    xq = (x @ wq.t()).view(1, SEQ, HEADS, HEAD_DIM)
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    freqs_cis = precompute_freqs_cis().view(1, SEQ, 1, HEAD_DIM // 2)
    return torch.view_as_real(xq_ * freqs_cis).flatten(3).type_as(xq)


def hf_permute(w):
    # convert_llama_weights_to_hf.py: interleaved pairs -> halves, per head
    return w.view(HEADS, HEAD_DIM // 2, 2, DIM).transpose(1, 2).reshape(DIM, DIM)


def rotate_half(x, sign=1.0):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-sign * x2, sign * x1), dim=-1)


def hf_rope(x, wq, sign=1.0):
    q = (x @ hf_permute(wq).t()).view(1, SEQ, HEADS, HEAD_DIM).transpose(1, 2)
    freqs = torch.outer(torch.arange(SEQ).float(), inv_freq())
    emb = torch.cat((freqs, freqs), dim=-1)
    out = q * emb.cos() + rotate_half(q, sign) * emb.sin()
    out = out.transpose(1, 2)  # [1, SEQ, HEADS, HEAD_DIM], halves
    # halves -> interleaved pairs (the inverse of hf_permute's reordering)
    return out.reshape(1, SEQ, HEADS, 2, HEAD_DIM // 2).transpose(-1, -2).reshape(1, SEQ, HEADS, HEAD_DIM)


def production(x, wq):
    return hf_rope(x, wq)
