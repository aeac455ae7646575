"""causal_attention_one_head_per_rank.py with a planted bug: production's causal mask hides the
diagonal too (triu(0)), so each query's own key is masked; the first query sees no key at all.
(Causal self attention by heads at TP=2, forward only, one head per rank: column-parallel q, k, v
(the rank's rows), attention on the rank's heads with a causal -inf mask, row-parallel output
projection all-reduced. Per element, the rank's [1, T, T] scores read their causal mask at
concrete indices, where the mask's select is the constant -inf (Note [Masked -inf]); it was
unknown ("a non-finite constant has no real value") until that was read as masked everywhere.)"""
import math
import torch
import torch.distributed as dist
import torch.nn.functional as F

# EXPECT: not_equivalent
# NEVER: equivalent

WORLD_SIZE = 2
T, D, H = 3, 4, 2
DH = D // H
SCALE = 1.0 / math.sqrt(DH)
SHARDING = {"wq": ("split", 0), "wk": ("split", 0), "wv": ("split", 0), "wo": ("split", 1)}


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(T, D), torch.randn(D, D), torch.randn(D, D), torch.randn(D, D), torch.randn(D, D))


def reference(h, wq, wk, wv, wo):
    q = F.linear(h, wq).view(T, H, DH).transpose(0, 1)
    k = F.linear(h, wk).view(T, H, DH).transpose(0, 1)
    v = F.linear(h, wv).view(T, H, DH).transpose(0, 1)
    p = torch.softmax(((q @ k.transpose(-2, -1)) * SCALE).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), float("-inf")), -1)
    a = (p @ v).transpose(0, 1).reshape(T, D)
    return F.linear(a, wo)


def production(rank, world_size, h, wq, wk, wv, wo):
    heads = H // world_size
    q = torch.matmul(h, wq.t()).view(T, heads, DH).transpose(0, 1)
    k = torch.matmul(h, wk.t()).view(T, heads, DH).transpose(0, 1)
    v = torch.matmul(h, wv.t()).view(T, heads, DH).transpose(0, 1)
    p = torch.softmax(((q @ k.transpose(-2, -1)) * SCALE).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(0), float("-inf")), -1)
    a = (p @ v).transpose(0, 1).reshape(T, heads * DH)
    o = torch.matmul(a, wo.t())
    dist.all_reduce(o)
    return o
