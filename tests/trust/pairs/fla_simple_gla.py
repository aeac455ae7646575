"""flash-linear-attention's chunked simple GLA against its recurrence.

Follows fla-org/flash-linear-attention fla/ops/simple_gla/naive.py: reference
naive_recurrent_simple_gla (float32 upcast, S = exp(g_t) S + k_t^T v_t, o_t = (q_t * scale) S),
production naive_chunk_simple_gla (cumulative log-decay per chunk, intra-chunk decay mask,
state carried across chunks), at chunk size 4 instead of 64. Shapes [batch, time, heads, dim],
g: [batch, time, heads] log decays (logsigmoid, as the layer makes them)."""
import torch
import torch.nn.functional as F

CHUNK = 4


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 8, 2, 4), torch.randn(1, 8, 2, 4), torch.randn(1, 8, 2, 4),
            F.logsigmoid(torch.randn(1, 8, 2) + 2))


def reference(q, k, v, g):
    dtype = q.dtype
    q, k, v, g = (t.transpose(1, 2).float() for t in (q, k, v, g))
    b, h, t_len, d = q.shape
    q = q * d ** -0.5
    state = q.new_zeros(b, h, d, v.shape[-1])
    outs = []
    for i in range(t_len):
        kv = k[:, :, i].unsqueeze(-1) * v[:, :, i].unsqueeze(-2)
        state = state * g[:, :, i].exp().unsqueeze(-1).unsqueeze(-1) + kv
        outs.append((q[:, :, i].unsqueeze(-1) * state).sum(-2))
    return torch.stack(outs, dim=2).transpose(1, 2).to(dtype)


def chunked(q, k, v, g, carry_position=-1):
    # carry_position: the chunk position up to which each key's contribution to the carried state
    # decays (-1: the last)
    q, k, v, g = (t.transpose(1, 2).to(torch.float32) for t in (q, k, v, g))
    b, h, t_len, d = q.shape
    q = q * (1.0 / d ** 0.5)

    def chunks(t):  # b h (n c) d -> b h n c d
        return t.reshape(b, h, t_len // CHUNK, CHUNK, -1)

    q, k, v = chunks(q), chunks(k), chunks(v)
    decay = chunks(g.unsqueeze(-1)).squeeze(-1).cumsum(-1)
    l_mask = (decay.unsqueeze(-1) - decay.unsqueeze(-2)).tril().exp().float().tril()
    state = k.new_zeros(b, h, d, v.shape[-1])
    outs = []
    for i in range(t_len // CHUNK):
        q_i, k_i, v_i = q[:, :, i], k[:, :, i], v[:, :, i]
        attn = q_i @ k_i.transpose(-1, -2) * l_mask[:, :, i]
        outs.append((q_i * decay[:, :, i, :, None].exp()) @ state + attn @ v_i)
        last = decay[:, :, i, -1, None]
        to_end = decay[:, :, i, carry_position, None] - decay[:, :, i]
        state = state * last[..., None].exp() + (k_i * to_end.exp()[..., None]).transpose(-1, -2) @ v_i
    return torch.stack(outs, dim=2).reshape(b, h, t_len, -1).transpose(1, 2)


def production(q, k, v, g):
    return chunked(q, k, v, g)
