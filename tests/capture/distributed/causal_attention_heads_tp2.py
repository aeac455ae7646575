"""Causal self attention by heads, forward only, at TP=2 (two heads per rank; at TP=4 in
causal_attention_heads_tp4.py, one): column-parallel q, k, v (the rank's rows), attention on the
rank's heads with a causal -inf mask, row-parallel output projection all-reduced. With one head
per rank, per element, the rank's [1, T, T] scores read their causal mask at concrete indices,
where the mask's select is the constant -inf (Note [Masked -inf] in src/sem/normal_form.cpp)."""
import math
import torch
import torch.distributed as dist
import torch.nn.functional as F

# EXPECT: equivalent real

WORLD_SIZE = 2
T, D, H = 3, 8, 4
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


def production(rank, world_size, h, wq, wk, wv, wo, diagonal=1):
    # diagonal: the causal mask's triu diagonal; 0 in the planted twin (each query's own key hidden)
    heads = H // world_size
    q = torch.matmul(h, wq.t()).view(T, heads, DH).transpose(0, 1)
    k = torch.matmul(h, wk.t()).view(T, heads, DH).transpose(0, 1)
    v = torch.matmul(h, wv.t()).view(T, heads, DH).transpose(0, 1)
    p = torch.softmax(((q @ k.transpose(-2, -1)) * SCALE).masked_fill(torch.ones(T, T, dtype=torch.bool).triu(diagonal), float("-inf")), -1)
    a = (p @ v).transpose(0, 1).reshape(T, heads * DH)
    o = torch.matmul(a, wo.t())
    dist.all_reduce(o)
    return o
