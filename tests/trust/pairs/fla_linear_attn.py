"""flash-linear-attention's chunked linear attention against its recurrent form.

Follows fla-org/flash-linear-attention fla/ops/linear_attn/naive.py: reference
naive_recurrent_linear_attn (inputs upcast to float32 on purpose, state S += k v^T, o_t = S^T q_t
* scale, one step per position), production naive_chunk_linear_attn (inter-chunk state by a
cumulative sum of k^T v over chunks, intra-chunk causal q k^T), at chunk size 4 instead of 64.
Shapes [batch, time, heads, dim]; no normalization, no initial state."""
import torch

CHUNK = 4


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(1, 8, 2, 4), torch.randn(1, 8, 2, 4), torch.randn(1, 8, 2, 4)


def reference(q, k, v):
    dtype = q.dtype
    scale = q.shape[-1] ** -0.5
    q, k, v = (t.to(torch.float32) for t in (q, k, v))
    b, t_len, h, d = q.shape
    state = torch.zeros(b, h, d, v.shape[-1], dtype=torch.float32)
    outs = []
    for t in range(t_len):
        state = state + torch.einsum('bhk,bhv->bhkv', k[:, t], v[:, t])
        outs.append(torch.einsum('bhkv,bhk->bhv', state, q[:, t] * scale))
    return torch.stack(outs, dim=1).to(dtype)


def chunked(q, k, v, diagonal=1):
    # diagonal: the first masked diagonal of the intra-chunk scores (1: keep j <= i)
    scale = q.shape[-1] ** -0.5
    b, t_len, h, d = q.shape

    def chunks(t):  # b (n c) h d -> b h n c d
        return t.reshape(b, t_len // CHUNK, CHUNK, h, -1).permute(0, 3, 1, 2, 4)

    q, k, v = chunks(q) * scale, chunks(k), chunks(v)
    kv = (k.transpose(-1, -2) @ v).cumsum(2)
    kv = torch.cat([torch.zeros_like(kv[:, :, :1]), kv[:, :, :-1]], dim=2)
    inter = q @ kv
    mask = torch.triu(torch.ones(CHUNK, CHUNK, dtype=torch.bool), diagonal=diagonal)
    intra = (q @ k.transpose(-1, -2)).masked_fill(mask, 0) @ v
    o = inter + intra
    return o.permute(0, 2, 3, 1, 4).reshape(b, t_len, h, -1)


def production(q, k, v):
    return chunked(q, k, v)
