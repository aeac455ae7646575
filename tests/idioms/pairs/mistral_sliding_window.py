"""A sliding-window causal attention mask built with tril/triu, as Mistral-style code builds it,
against the window written as index comparisons.

Follows the sliding-window mask of huggingface/transformers (src/transformers/masking_utils.py,
`sliding_window_causal_mask_function`: kv_idx <= q_idx and q_idx - kv_idx < sliding_window) and the
older `_make_sliding_window_causal_mask` (modeling_attn_mask_utils.py: a tril with a triu cut at
-sliding_window); masked scores are filled with the dtype's minimum, as HF does, then softmaxed."""
import torch

MODE = "forward"
WINDOW = 3


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(2, 6, 6),)


def reference(scores):
    t = scores.shape[-1]
    q = torch.arange(t).unsqueeze(-1)
    k = torch.arange(t).unsqueeze(0)
    allowed = (k <= q) & (q - k < WINDOW)
    return scores.masked_fill(~allowed, torch.finfo(scores.dtype).min).softmax(-1)


def production(scores, window=WINDOW):
    t = scores.shape[-1]
    allowed = torch.ones(t, t, dtype=torch.bool).tril().triu(-(window - 1))
    return scores.masked_fill(~allowed, torch.finfo(scores.dtype).min).softmax(-1)
