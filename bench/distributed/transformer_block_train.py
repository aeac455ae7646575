"""A tensor-parallel pre-LN transformer block, forward and backward, at TP=2, in the shape of
Megatron-LM's (megatron/core/transformer/transformer_layer.py: input LayerNorm, self attention,
residual, pre-MLP LayerNorm, MLP, residual). Attention (attention.py): linear_qkv a
ColumnParallelLinear without gather_output, so each rank holds H / TP heads (the rows of wq, wk,
wv that are its heads); core attention on the rank's heads alone; linear_proj a RowParallelLinear
with input_is_parallel=True (a partial product, all-reduced, then the bias). The MLP as in
mlp_train.py. The LayerNorms are replicated (no sequence parallelism). The backward is each
rank's explicit one, as autograd computes it through tensor_parallel/mappings.py: the forward's
all-reduce is the identity backward, and copy_to_tensor_model_parallel_region (the input of every
column-parallel layer) all-reduces the input gradient.

The reference is the single-device block, through autograd. Not in ctest (minutes per pair): what
it measures and the command are in bench/distributed/README.md."""
import math

import torch
import torch.distributed as dist
import torch.nn.functional as F

# XFAIL: grad_wq and grad_wk are unknown at TP=2 (bench/distributed/README.md)
# EXPECT: equivalent
# NEVER: not_equivalent

MODE = "train_step"
WORLD_SIZE = 2
T, D, H = 4, 8, 4           # tokens, model width, heads (H divisible by every TP tried)
DH = D // H
F_HIDDEN = 8
EPS = 1e-5
SCALE = 1.0 / math.sqrt(DH)
# The rank's heads: the rows of wq, wk, wv (split along dim 0) and the columns of wo (dim 1).
SHARDING = {"wq": ("split", 0), "wk": ("split", 0), "wv": ("split", 0), "wo": ("split", 1),
            "w1": ("split", 0), "b1": ("split", 0), "w2": ("split", 1),
            "grad_wq": ("split", 0), "grad_wk": ("split", 0), "grad_wv": ("split", 0),
            "grad_wo": ("split", 1), "grad_w1": ("split", 0), "grad_b1": ("split", 0),
            "grad_w2": ("split", 1)}


def example_inputs():
    torch.manual_seed(0)

    def p(*shape):
        return torch.randn(*shape, requires_grad=True)

    return (p(T, D), p(D), p(D), p(D, D), p(D, D), p(D, D), p(D, D), p(D), p(D), p(D),
            p(F_HIDDEN, D), p(F_HIDDEN), p(D, F_HIDDEN), p(D), torch.randn(T, D))


def causal_mask(t):
    return torch.ones(t, t, dtype=torch.bool).triu(1)


def reference(x, ln1_w, ln1_b, wq, wk, wv, wo, bo, ln2_w, ln2_b, w1, b1, w2, b2, gy):
    h = F.layer_norm(x, (D,), ln1_w, ln1_b, EPS)
    q = F.linear(h, wq).view(T, H, DH).transpose(0, 1)
    k = F.linear(h, wk).view(T, H, DH).transpose(0, 1)
    v = F.linear(h, wv).view(T, H, DH).transpose(0, 1)
    s = (q @ k.transpose(-2, -1)) * SCALE
    p = torch.softmax(s.masked_fill(causal_mask(T), float("-inf")), -1)
    a = (p @ v).transpose(0, 1).reshape(T, D)
    x1 = x + F.linear(a, wo, bo)
    h2 = F.layer_norm(x1, (D,), ln2_w, ln2_b, EPS)
    y = x1 + F.linear(F.gelu(F.linear(h2, w1, b1)), w2, b2)
    return (y * gy).sum()


def layer_norm_forward(x, w, b):
    mu = x.mean(-1, keepdim=True)
    xc = x - mu
    rstd = torch.rsqrt((xc * xc).mean(-1, keepdim=True) + EPS)
    xhat = xc * rstd
    return xhat * w + b, xhat, rstd


def layer_norm_backward(gy, xhat, rstd, w):
    g = gy * w
    gx = rstd * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return gx, (gy * xhat).sum(0), gy.sum(0)


def production(rank, world_size, x, ln1_w, ln1_b, wq, wk, wv, wo, bo, ln2_w, ln2_b, w1, b1, w2, b2, gy,
               bug="none"):
    # bug: the planted bug of a variant (transformer_block_train_tp*__BUG.py), "none" here.
    # no_qkv_dgrad_allreduce: linear_qkv's backward does not all-reduce the input gradient;
    # proj_bias_every_rank: linear_proj adds its bias before the all-reduce, on every rank.
    heads = H // world_size
    # Self attention on the rank's heads.
    h, xhat1, rstd1 = layer_norm_forward(x, ln1_w, ln1_b)
    q = torch.matmul(h, wq.t()).view(T, heads, DH).transpose(0, 1)
    k = torch.matmul(h, wk.t()).view(T, heads, DH).transpose(0, 1)
    v = torch.matmul(h, wv.t()).view(T, heads, DH).transpose(0, 1)
    s = (q @ k.transpose(-2, -1)) * SCALE
    p = torch.softmax(s.masked_fill(causal_mask(T), float("-inf")), -1)
    a = (p @ v).transpose(0, 1).reshape(T, heads * DH)
    o_parallel = torch.matmul(a, wo.t())
    if bug == "proj_bias_every_rank":
        o_parallel = o_parallel + bo
    dist.all_reduce(o_parallel)                    # linear_proj: reduce_from_tensor_model_parallel_region
    x1 = x + (o_parallel if bug == "proj_bias_every_rank" else o_parallel + bo)
    # MLP.
    h2, xhat2, rstd2 = layer_norm_forward(x1, ln2_w, ln2_b)
    m_pre = torch.matmul(h2, w1.t()) + b1
    m = F.gelu(m_pre)
    y_parallel = torch.matmul(m, w2.t())
    dist.all_reduce(y_parallel)                    # linear_fc2
    y = x1 + y_parallel + b2
    loss = (y * gy).sum()
    # MLP backward.
    grad_w2 = gy.t().matmul(m)
    grad_b2 = gy.sum(0)
    grad_m_pre = torch.ops.aten.gelu_backward(gy.matmul(w2), m_pre)
    grad_w1 = grad_m_pre.t().matmul(h2)
    grad_b1 = grad_m_pre.sum(0)
    grad_h2 = grad_m_pre.matmul(w1)
    dist.all_reduce(grad_h2)                       # linear_fc1's copy_to_tensor_model_parallel_region
    grad_x1_ln, grad_ln2_w, grad_ln2_b = layer_norm_backward(grad_h2, xhat2, rstd2, ln2_w)
    grad_x1 = gy + grad_x1_ln
    # Attention backward.
    grad_wo = grad_x1.t().matmul(a)
    grad_bo = grad_x1.sum(0)
    grad_o = grad_x1.matmul(wo).view(T, heads, DH).transpose(0, 1)
    grad_v = p.transpose(-2, -1) @ grad_o
    grad_p = grad_o @ v.transpose(-2, -1)
    grad_s = p * (grad_p - (grad_p * p).sum(-1, keepdim=True)) * SCALE
    grad_q = (grad_s @ k).transpose(0, 1).reshape(T, heads * DH)
    grad_k = (grad_s.transpose(-2, -1) @ q).transpose(0, 1).reshape(T, heads * DH)
    grad_v = grad_v.transpose(0, 1).reshape(T, heads * DH)
    grad_wq, grad_wk, grad_wv = grad_q.t().matmul(h), grad_k.t().matmul(h), grad_v.t().matmul(h)
    grad_h = grad_q.matmul(wq) + grad_k.matmul(wk) + grad_v.matmul(wv)
    if bug != "no_qkv_dgrad_allreduce":
        dist.all_reduce(grad_h)                    # linear_qkv's copy_to_tensor_model_parallel_region
    grad_x_ln, grad_ln1_w, grad_ln1_b = layer_norm_backward(grad_h, xhat1, rstd1, ln1_w)
    grad_x = grad_x1 + grad_x_ln
    return (loss, grad_x, grad_ln1_w, grad_ln1_b, grad_wq, grad_wk, grad_wv, grad_wo, grad_bo,
            grad_ln2_w, grad_ln2_b, grad_w1, grad_b1, grad_w2, grad_b2)
