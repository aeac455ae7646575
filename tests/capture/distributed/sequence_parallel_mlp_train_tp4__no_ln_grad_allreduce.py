"""Planted bug in sequence_parallel_mlp_train.py at TP=4: the LayerNorm weight's gradient, a
sequence-parallel parameter computed from the rank's tokens only, is not all-reduced over the
group (finalize_model_grads' all-reduce forgotten)."""
import torch
import torch.distributed as dist
import torch.nn.functional as F

from sequence_parallel_mlp_train import (MODE, SHARDING, EPS, example_inputs, reference,  # noqa: F401
                                         gather_along_first_dim, reduce_scatter_along_first_dim)

WORLD_SIZE = 4


def production(rank, world_size, x, ln_w, ln_b, w1, b1, w2, b2, gy):
    z, mean, rstd = torch.ops.aten.native_layer_norm(x, [x.shape[-1]], ln_w, ln_b, EPS)
    z_total = gather_along_first_dim(z, world_size)               # fc1's sequence-parallel input
    h_pre = torch.matmul(z_total, w1.t()) + b1
    h = F.gelu(h_pre)
    y = reduce_scatter_along_first_dim(torch.matmul(h, w2.t()), world_size) + b2
    loss = (y * gy).sum()
    dist.all_reduce(loss)
    gy_total = gather_along_first_dim(gy, world_size)             # reduce-scatter's backward
    grad_w2 = gy_total.t().matmul(h)
    grad_b2 = gy.sum(dim=0)
    dist.all_reduce(grad_b2)                                      # a sequence-parallel parameter
    grad_h_pre = torch.ops.aten.gelu_backward(gy_total.matmul(w2), h_pre)
    grad_w1 = grad_h_pre.t().matmul(z_total)
    grad_b1 = grad_h_pre.sum(dim=0)
    grad_z = reduce_scatter_along_first_dim(grad_h_pre.matmul(w1), world_size)  # all-gather's backward
    grad_x, grad_ln_w, grad_ln_b = torch.ops.aten.native_layer_norm_backward(
        grad_z, x, [x.shape[-1]], mean, rstd, ln_w, ln_b, [True, True, True])
    dist.all_reduce(grad_ln_b)
    return loss, grad_x, grad_ln_w, grad_ln_b, grad_w1, grad_b1, grad_w2, grad_b2


# EXPECT: not_equivalent
# EXPECT-OUTPUT: grad_ln_w not_equivalent
# EXPECT-OUTPUT: grad_ln_b equivalent
