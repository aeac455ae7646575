"""flash-linear-attention's retention: the parallel (naive) form against the recurrent form.

Follows fla-org/flash-linear-attention fla/ops/retention/naive.py, naive_retention (float32
upcast, per-head decay gamma_h = 1 - 2^(-5 - h) applied as exp2((n - m) * log2 gamma_h) on the
causal mask); production is the recurrence the fused_recurrent kernel computes:
S_t = gamma_h S_{t-1} + k_t^T v_t, o_t = (q_t * d^-0.5) S_t. Shapes [batch, heads, time, dim]."""
import torch


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(1, 2, 8, 4), torch.randn(1, 2, 8, 4), torch.randn(1, 2, 8, 4)


def reference(q, k, v):
    orig_type = q.dtype
    q, k, v = q.float(), k.float(), v.float()
    _, n_heads, seq_len, d_head = q.shape
    s = (1 - q.new_tensor(2., dtype=torch.float).pow(-5. - q.new_tensor(range(n_heads), dtype=torch.float))).log2()
    n = q.new_tensor(range(seq_len), dtype=torch.float)
    n = torch.exp2((n.unsqueeze(-1) - n) * s.view(-1, 1, 1)) * n.unsqueeze(-1).ge(n)
    scores = torch.einsum('bhqd,bhkd,hqk->bhqk', q * d_head ** -0.5, k, n.to(q.dtype))
    return torch.einsum('bhqk,bhkd->bhqd', scores, v).to(orig_type)


def recurrent(q, k, v, head_order=None):
    # head_order: which head's decay each head uses (None: its own)
    b, h, t_len, d = q.shape
    gamma = [1 - 2.0 ** (-5 - head) for head in range(h)]
    if head_order is not None:
        gamma = [gamma[i] for i in head_order]
    decay = torch.tensor(gamma).view(1, h, 1, 1)
    state = torch.zeros(b, h, d, v.shape[-1])
    outs = []
    for t in range(t_len):
        state = decay * state + k[:, :, t].unsqueeze(-1) * v[:, :, t].unsqueeze(-2)
        outs.append(torch.einsum('bhk,bhkv->bhv', q[:, :, t] * d ** -0.5, state))
    return torch.stack(outs, dim=2)


def production(q, k, v):
    return recurrent(q, k, v)
