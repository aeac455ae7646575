"""Planted bug in column_parallel_train.py: the backward's all-reduce of the input gradient is
missing (each rank keeps its partial gradient)."""
import torch
import torch.distributed as dist

from column_parallel_train import MODE, WORLD_SIZE, SHARDING, example_inputs, reference  # noqa: F401


def production(rank, world_size, x, w, b, gy):
    y = torch.matmul(x, w.t()) + b
    loss = (y * gy).sum()
    dist.all_reduce(loss)
    grad_input = gy.matmul(w)
    grad_weight = gy.t().matmul(x)
    grad_bias = gy.sum(dim=0)
    return loss, grad_input, grad_weight, grad_bias


# EXPECT: not_equivalent
# EXPECT-OUTPUT: grad_x not_equivalent
# EXPECT-REASON: r0_mm_2
