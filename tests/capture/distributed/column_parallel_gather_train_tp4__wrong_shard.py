"""Planted bug in column_parallel_gather_train.py at TP=4: the backward takes the gradient's chunk
of the next rank (rank + 1, wrapping) instead of its own."""
import torch
import torch.distributed as dist

from column_parallel_gather_train import (MODE, SHARDING, example_inputs, reference,  # noqa: F401
                                          gather_along_last_dim, split_along_last_dim)

WORLD_SIZE = 4


def production(rank, world_size, x, w, b, gy):
    y_parallel = torch.matmul(x, w.t()) + b
    y = gather_along_last_dim(y_parallel, world_size)
    loss = (y * gy).sum()
    gy_parallel = split_along_last_dim(gy, (rank + 1) % world_size, world_size)
    grad_x = gy_parallel.matmul(w)
    dist.all_reduce(grad_x)
    grad_w = gy_parallel.t().matmul(x)
    grad_b = gy_parallel.sum(dim=0)
    return loss, grad_x, grad_w, grad_b


# EXPECT: not_equivalent
# EXPECT-OUTPUT: grad_x not_equivalent
# EXPECT-REASON: all_reduce2_add
