"""flash-linear-attention's pure-PyTorch linear attention (fla/ops/linear_attn/naive.py):
naive_recurrent_linear_attn, the reference, walks the sequence one step at a time with a
running K x V state, in float32 on purpose (its q, k, v `.to(torch.float32)`, the state made in
float32, the output cast back to the input dtype); naive_chunk_linear_attn, production, splits
the sequence into chunks (64 in fla, 32 here), carries the state across chunks with a cumulative sum of k^T v
and adds the causal attention within each chunk. Written here in my own words, with reshapes for
einops' rearrange. Both are the causal sum o_t = scale * sum_{s <= t} (q_t . k_s) v_s: equivalent
up to rounding. The reference's float32 casts round inside the eager cross-check's float64 runs,
which before issue 34 read the recurrent form's float32 rounding as a difference beyond rounding."""
import torch

B, T, H, K, V = 1, 64, 1, 4, 4
CHUNK = 32  # fla uses 64; two chunks of 32 keep the recurrent graph small


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(B, T, H, K), torch.randn(B, T, H, K), torch.randn(B, T, H, V))


def reference(q, k, v):
    dtype = q.dtype
    scale = q.shape[-1] ** -0.5
    q, k, v = (x.to(torch.float32) for x in (q, k, v))
    o = torch.empty_like(v)
    state = torch.zeros((B, H, K, V), device=q.device, dtype=torch.float32)
    for t in range(T):
        state = state + torch.einsum("bhk,bhv->bhkv", k[:, t], v[:, t])
        o[:, t] = torch.einsum("bhkv,bhk->bhv", state, q[:, t] * scale)
    return o.to(dtype)


def _chunks(x):
    """b (n c) h d -> b h n c d"""
    b, t, h, d = x.shape
    return x.reshape(b, t // CHUNK, CHUNK, h, d).permute(0, 3, 1, 2, 4)


def production(q, k, v):
    scale = q.shape[-1] ** -0.5
    q = _chunks(q) * scale
    k, v = _chunks(k), _chunks(v)
    kv = (k.transpose(-1, -2) @ v).cumsum(2)
    kv = torch.cat([torch.zeros_like(kv[:, :, :1]), kv[:, :, :-1]], dim=2)
    inter = q @ kv
    future = torch.triu(torch.ones(CHUNK, CHUNK, dtype=torch.bool, device=q.device), diagonal=1)
    intra = (q @ k.transpose(-1, -2)).masked_fill_(future, 0) @ v
    o = inter + intra
    b, h, n, c, d = o.shape
    return o.permute(0, 2, 3, 1, 4).reshape(b, n * c, h, d)


# EXPECT: unknown
# EXPECT-REASON: ran in float32: the float64 runs cannot separate rounding from a difference
# What the runs showed, with the unknown (Note [Evidence of undecided outputs]):
# EXPECT-REASON: the two functions differ on 4 inputs (example_inputs() and 3 seeded random draws)
# NEVER: not_equivalent
