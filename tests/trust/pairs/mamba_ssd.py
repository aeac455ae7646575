"""mamba's chunked SSD reference against the sequential selective scan.

Follows state-spaces/mamba mamba_ssm/ops/triton/ssd_combined.py, ssd_chunk_scan_combined_ref
(dt upcast with .float() on purpose before the cumulative sum; chunk_state_ref,
state_passing_ref and chunk_scan_ref of ssd_chunk_state.py, ssd_state_passing.py and
ssd_chunk_scan.py) at chunk size 4, without z, dt_bias or softplus; the reference is the scan
that ssd_selective_scan hands to selective_scan_fn, written as its recurrence (selective_scan_ref
in mamba_ssm/ops/selective_scan_interface.py): h_t = exp(dt_t A) h_{t-1} + dt_t x_t B_t^T,
y_t = h_t C_t + D x_t. Shapes: x [batch, time, heads, headdim], dt [batch, time, heads], A and D
[heads], B and C [batch, time, groups=1, state]."""
import torch
import torch.nn.functional as F

CHUNK = 4


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 8, 2, 3), F.softplus(torch.randn(1, 8, 2) - 1), -torch.rand(2) - 0.5,
            torch.randn(1, 8, 1, 4), torch.randn(1, 8, 1, 4), torch.randn(2))


def reference(x, dt, a, b, c, d):
    batch, t_len, heads, p = x.shape
    state = torch.zeros(batch, heads, p, b.shape[-1])
    outs = []
    for t in range(t_len):
        dt_t = dt[:, t].float()  # [batch, heads]
        decay = torch.exp(dt_t * a)[..., None, None]
        state = decay * state + (dt_t[..., None] * x[:, t])[..., None] * b[:, t, 0][:, None, None, :]
        outs.append((state * c[:, t, 0][:, None, None, :]).sum(-1) + d[:, None] * x[:, t])
    return torch.stack(outs, dim=1)


def chunk_scan(x, dt, a, b, c, d, diagonal=0):
    # diagonal: the last diagonal the intra-chunk causal mask keeps (0: position s <= l)
    batch, t_len, heads, p = x.shape
    n = t_len // CHUNK
    dt = dt.reshape(batch, n, CHUNK, heads).permute(0, 3, 1, 2).float()  # b h c l
    da_cumsum = torch.cumsum(dt * a.view(heads, 1, 1), dim=-1)
    xc = x.reshape(batch, n, CHUNK, heads, p)
    bc = b.expand(batch, t_len, heads, b.shape[-1]).reshape(batch, n, CHUNK, heads, -1)
    cc = c.expand(batch, t_len, heads, c.shape[-1]).reshape(batch, n, CHUNK, heads, -1)
    # 1. each chunk's final state (chunk_state_ref)
    decay_states = torch.exp(da_cumsum[:, :, :, -1:] - da_cumsum)
    states = torch.einsum('bclhn,bhcl,bhcl,bclhp->bchpn', bc, decay_states, dt, xc)
    # 2. states passed across chunks by a weighted cumulative sum (state_passing_ref)
    flat = states.reshape(batch, n, heads, -1)
    flat = torch.cat([torch.zeros_like(flat[:, :1]), flat], dim=1)
    chunk_cumsum = torch.cumsum(F.pad(da_cumsum[:, :, :, -1], (1, 0)), dim=-1)
    segment = chunk_cumsum[:, :, :, None] - chunk_cumsum[:, :, None, :]
    causal = torch.tril(torch.ones(n + 1, n + 1, dtype=torch.bool))
    decay_chunk = torch.exp(segment).masked_fill(~causal, 0)
    passed = torch.einsum('bhzc,bchd->bzhd', decay_chunk, flat)[:, :-1]
    prev_states = passed.reshape(batch, n, heads, p, -1)
    # 3. each chunk's output (chunk_scan_ref)
    cb = torch.einsum('bclhn,bcshn->bchls', cc, bc)
    decay = torch.exp(da_cumsum[:, :, :, :, None] - da_cumsum[:, :, :, None, :])
    scores = cb * decay.permute(0, 2, 1, 3, 4)
    mask = torch.tril(torch.ones(CHUNK, CHUNK, dtype=torch.bool), diagonal=diagonal)
    scores = scores.masked_fill(~mask, 0)
    out = torch.einsum('bchls,bhcs,bcshp->bclhp', scores, dt, xc)
    state_decay_out = torch.exp(da_cumsum.permute(0, 2, 3, 1)[..., None])
    out = out + torch.einsum('bclhn,bchpn->bclhp', cc, prev_states) * state_decay_out
    out = out.reshape(batch, t_len, heads, p)
    return out + x * d.view(heads, 1)


def production(x, dt, a, b, c, d):
    return chunk_scan(x, dt, a, b, c, d)
