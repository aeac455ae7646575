"""Planted bug in row_parallel_train.py: every rank adds the bias to its partial product before the
all-reduce, so the reduced output carries the bias WORLD_SIZE times."""
import torch
import torch.distributed as dist

from row_parallel_train import MODE, WORLD_SIZE, SHARDING, example_inputs, reference, gather_along_last_dim  # noqa: F401


def production(rank, world_size, x, w, b, gy):
    x_parallel = torch.split(x, x.shape[-1] // world_size, dim=-1)[rank].contiguous()
    y_parallel = torch.matmul(x_parallel, w.t()) + b
    dist.all_reduce(y_parallel)
    y = y_parallel
    loss = (y * gy).sum()
    grad_x_parallel = gy.matmul(w)
    grad_x = gather_along_last_dim(grad_x_parallel, world_size)
    grad_w = gy.t().matmul(x_parallel)
    grad_b = gy.sum(dim=0)
    return loss, grad_x, grad_w, grad_b


# EXPECT: not_equivalent
# EXPECT-OUTPUT: loss not_equivalent
# EXPECT-REASON: all_reduce1_add
