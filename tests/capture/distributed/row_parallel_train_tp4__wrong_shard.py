"""Planted bug in row_parallel_train.py at TP=4: the replicated input is split with the shard
index counted from the other end, so rank r multiplies chunk WORLD_SIZE-1-r of the input by its
chunk r of the weight."""
import torch
import torch.distributed as dist

from row_parallel_train import MODE, SHARDING, example_inputs, reference, gather_along_last_dim  # noqa: F401

WORLD_SIZE = 4


def production(rank, world_size, x, w, b, gy):
    x_parallel = torch.split(x, x.shape[-1] // world_size, dim=-1)[world_size - 1 - rank].contiguous()
    y_parallel = torch.matmul(x_parallel, w.t())
    dist.all_reduce(y_parallel)
    y = y_parallel + b
    loss = (y * gy).sum()
    grad_x_parallel = gy.matmul(w)
    grad_x = gather_along_last_dim(grad_x_parallel, world_size)
    grad_w = gy.t().matmul(x_parallel)
    grad_b = gy.sum(dim=0)
    return loss, grad_x, grad_w, grad_b


# EXPECT: not_equivalent
# EXPECT-OUTPUT: loss not_equivalent
# EXPECT-OUTPUT: grad_w not_equivalent
# EXPECT-REASON: r0_mm
