"""GQA's key/value head repetition as HF transformers writes it, against repeat_interleave.

Follows huggingface/transformers src/transformers/models/llama/modeling_llama.py, `repeat_kv`:
(batch, kv_heads, seq, dim) expanded to (batch, kv_heads, n_rep, seq, dim) and reshaped, which the
docstring calls "the equivalent of torch.repeat_interleave(x, dim=1, repeats=n_rep)"."""
import torch

MODE = "forward"
N_REP = 3


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 2, 4, 5),)


def reference(k):
    return torch.repeat_interleave(k, repeats=N_REP, dim=1)


def repeat_kv(hidden_states, n_rep):
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


def production(k):
    return repeat_kv(k, N_REP)
