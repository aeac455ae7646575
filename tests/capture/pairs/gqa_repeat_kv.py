"""Grouped-query attention's repeat_kv: HF transformers' `repeat_kv` (models/llama/modeling_llama.py)
expands the key/value heads with `[:, :, None].expand(...).reshape(...)`, and its docstring says it
is `torch.repeat_interleave(x, dim=1, repeats=n_rep)`. Reference: repeat_interleave (captured as
`repeat_interleave.Tensor` of the repeats, then `index_select`); production: HF's form, followed by
the attention scores it feeds (q @ k^T), as in LlamaAttention's eager path."""
import torch

N_REP = 3


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 6, 5, 4), torch.randn(2, 2, 5, 4))


def reference(q, k):
    k = torch.repeat_interleave(k, dim=1, repeats=N_REP)
    return q @ k.transpose(2, 3)


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def production(q, k):
    return q @ repeat_kv(k, N_REP).transpose(2, 3)
