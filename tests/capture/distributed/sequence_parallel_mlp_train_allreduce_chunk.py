"""sequence_parallel_mlp_train.py with fc2's reduce-scatter written as an all-reduce followed by the
rank's chunk of the tokens: more communication, the same values (proven equivalent)."""
import torch
import torch.distributed as dist
import torch.nn.functional as F

from sequence_parallel_mlp_train import (MODE, WORLD_SIZE, SHARDING, EPS, example_inputs, reference,  # noqa: F401
                                         gather_along_first_dim, reduce_scatter_along_first_dim)


def production(rank, world_size, x, ln_w, ln_b, w1, b1, w2, b2, gy):
    z, mean, rstd = torch.ops.aten.native_layer_norm(x, [x.shape[-1]], ln_w, ln_b, EPS)
    z_total = gather_along_first_dim(z, world_size)               # fc1's sequence-parallel input
    h_pre = torch.matmul(z_total, w1.t()) + b1
    h = F.gelu(h_pre)
    y_total = torch.matmul(h, w2.t())
    dist.all_reduce(y_total)                                      # all of it, then the rank's tokens
    y = y_total.chunk(world_size, dim=0)[rank] + b2
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
    dist.all_reduce(grad_ln_w)                                    # sequence-parallel parameters
    dist.all_reduce(grad_ln_b)
    return loss, grad_x, grad_ln_w, grad_ln_b, grad_w1, grad_b1, grad_w2, grad_b2
