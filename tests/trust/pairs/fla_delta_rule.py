"""flash-linear-attention's chunkwise delta rule against its recurrence.

Follows fla-org/flash-linear-attention fla/ops/delta_rule/naive.py: reference
delta_rule_recurrence (float32 upcast; v_t -= S^T k_t, scaled by beta_t, S += k_t v_t^T,
o_t = S^T q_t), production delta_rule_chunkwise (the WY form: (I - tril(diag(beta) K K^T))^-1 by
forward substitution, then u = T v, w = T k_beta per chunk), at chunk size 4 instead of 32.
Shapes [batch, heads, time, dim]; beta in (0, 1), keys L2-normalized as the layer feeds them."""
import torch
import torch.nn.functional as F

CHUNK = 4


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 1, 8, 4), F.normalize(torch.randn(1, 1, 8, 4), dim=-1), torch.randn(1, 1, 8, 4),
            torch.rand(1, 1, 8) * 0.8 + 0.1)


def reference(q, k, v, beta):
    orig_dtype = q.dtype
    b, h, length, d_k = q.shape
    q, k, v, beta = (t.float() for t in (q, k, v, beta))
    state = torch.zeros(b, h, d_k, v.shape[-1])
    q = q * (d_k ** -0.5)
    beta = beta[..., None]
    outs = []
    for i in range(length):
        k_i, q_i = k[:, :, i], q[:, :, i]
        v_i = v[:, :, i] - (state * k_i[..., None]).sum(-2)
        v_i = v_i * beta[:, :, i]
        state = state + k_i.unsqueeze(-1) * v_i.unsqueeze(-2)
        outs.append(torch.einsum('bhd,bhdm->bhm', q_i, state))
    return torch.stack(outs, dim=2).to(orig_dtype)


def chunkwise(q, k, v, beta, correct_state=True):
    # correct_state: subtract w S, the part of each chunk's values the earlier chunks' state explains
    b, h, length, d_k = q.shape
    q = q * (d_k ** -0.5)
    v = v * beta[..., None]
    k_beta = k * beta[..., None]

    def chunks(t):  # b h (n c) d -> b h n c d
        return t.reshape(b, h, length // CHUNK, CHUNK, -1)

    q, k, v, k_beta = chunks(q), chunks(k), chunks(v), chunks(k_beta)
    upper = torch.triu(torch.ones(CHUNK, CHUNK, dtype=torch.bool), diagonal=0)
    attn = -(k_beta @ k.transpose(-1, -2)).masked_fill(upper, 0)
    for i in range(1, CHUNK):
        attn[..., i, :i] = attn[..., i, :i] + (attn[..., i, :, None].clone() * attn[..., :, :i].clone()).sum(-2)
    attn = attn + torch.eye(CHUNK)
    u = attn @ v
    w = attn @ k_beta
    state = k.new_zeros(b, h, d_k, v.shape[-1])
    strict = torch.triu(torch.ones(CHUNK, CHUNK, dtype=torch.bool), diagonal=1)
    outs = []
    for i in range(length // CHUNK):
        q_i, k_i = q[:, :, i], k[:, :, i]
        scores = (q_i @ k_i.transpose(-1, -2)).masked_fill(strict, 0)
        u_i = u[:, :, i] - w[:, :, i] @ state if correct_state else u[:, :, i]
        outs.append(q_i @ state + scores @ u_i)
        state = state + k_i.transpose(-1, -2) @ u_i
    return torch.stack(outs, dim=2).reshape(b, h, length, -1)


def production(q, k, v, beta):
    return chunkwise(q, k, v, beta)
