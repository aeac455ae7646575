"""ALiBi attention biases as BLOOM builds them, against the paper's slopes written directly.

Follows huggingface/transformers src/transformers/models/bloom/modeling_bloom.py,
`build_alibi_tensor` (for a power-of-two head count: base = 2 ** (-(2 ** -(log2(n) - 3))),
slopes = base ** [1..n], times the key positions from the cumulative attention mask), and
Press et al.'s slopes 2^(-8 (h + 1) / n). Added to the scores, then softmaxed; a batch without
padding (the attention mask all ones)."""
import math

import torch

MODE = "forward"
HEADS = 4


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(HEADS, 5, 5),)


def reference(scores):
    slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / HEADS) for h in range(HEADS)])
    positions = torch.arange(scores.shape[-1]).float()
    return (scores + slopes[:, None, None] * positions[None, None, :]).softmax(-1)


def build_alibi_tensor(attention_mask, num_heads, shift=3):
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = torch.tensor(2 ** (-(2 ** -(math.log2(closest_power_of_2) - shift))), dtype=torch.float32)
    powers = torch.arange(1, 1 + closest_power_of_2, dtype=torch.int32)
    slopes = torch.pow(base, powers)
    arange_tensor = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[None, :]
    return slopes[..., None] * arange_tensor


def production(scores, shift=3):
    alibi = build_alibi_tensor(torch.ones(scores.shape[-1]), HEADS, shift)
    return (scores + alibi[:, None, :]).softmax(-1)
