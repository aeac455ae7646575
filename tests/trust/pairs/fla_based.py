"""flash-linear-attention's chunked Based (2nd-order Taylor linear attention) against its
parallel form.

Follows fla-org/flash-linear-attention fla/ops/based/naive.py: reference naive_parallel_based
(scores 1 + s + s^2 / 2 on the causal mask, normalized by their row sums + 1e-6), production
naive_chunk_based (normalizer from cumulative sums of k and k k^T, the constant, linear and
quadratic terms carried across chunks by cumulative sums), at chunk size 4 instead of 256.
Shapes [batch, heads, time, dim]."""
import torch

CHUNK = 4


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(1, 1, 8, 3) / 2, torch.randn(1, 1, 8, 3) / 2, torch.randn(1, 1, 8, 3)


def reference(q, k, v):
    q = q * q.shape[-1] ** -0.5
    attn = q @ k.transpose(-2, -1)
    attn = 1 + attn + 1 / 2 * (attn ** 2)
    attn = attn.masked_fill(~torch.tril(torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool)), 0)
    o = attn @ v
    return o / (attn.sum(-1)[..., None] + 1e-6)


def chunked(q, k, v, quadratic=0.5):
    # quadratic: the weight of the quadratic term carried from earlier chunks (1/2 in the Taylor series)
    b, h, t_len, d = q.shape
    q = q * d ** -0.5
    k_cumsum = torch.cumsum(k, dim=-2)
    kk_cumsum = torch.cumsum(k.unsqueeze(-1) * k.unsqueeze(-2), dim=-3)
    z = (q * k_cumsum).sum(-1)
    z = z + (q.unsqueeze(-1) * q.unsqueeze(-2) * kk_cumsum).sum((-1, -2)) * 0.5
    z = z + (torch.arange(0, t_len) * 1.0 + 1.0)[None, None, :]
    const = v.cumsum(-2)

    def chunks(t):  # b h (n c) d -> b h n c d
        return t.reshape(b, h, t_len // CHUNK, CHUNK, -1)

    q, k, v = chunks(q), chunks(k), chunks(v)
    intra = q @ k.transpose(-2, -1)
    intra = intra + 1 / 2 * (intra ** 2)
    intra = intra.masked_fill(~torch.tril(torch.ones(CHUNK, CHUNK, dtype=torch.bool)), 0)
    o = intra @ v
    kv = torch.einsum('bhncx,bhncy,bhncz->bhnxyz', k, k, v).cumsum(2)
    kv = torch.cat([torch.zeros_like(kv[:, :, :1]), kv[:, :, :-1]], dim=2)
    o = o + quadratic * torch.einsum('bhnxyz,bhncx,bhncy->bhncz', kv, q, q)
    kv = torch.einsum('bhncx,bhncy->bhnxy', k, v).cumsum(2)
    kv = torch.cat([torch.zeros_like(kv[:, :, :1]), kv[:, :, :-1]], dim=2)
    o = o + torch.einsum('bhnxy,bhncx->bhncy', kv, q)
    o = o.reshape(b, h, t_len, -1) + const
    return o / (z[..., None] + 1e-6)


def production(q, k, v):
    return chunked(q, k, v)
