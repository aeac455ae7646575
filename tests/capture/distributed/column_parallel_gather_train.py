"""Megatron-LM's ColumnParallelLinear with gather_output=True, forward and backward, at TP=2
(megatron/core/tensor_parallel/layers.py, ColumnParallelLinear.forward; mappings.py:
gather_from_tensor_model_parallel_region = _gather_along_last_dim forward (all-gather into one
tensor along dim 0, then chunks concatenated along the last dim), _split_along_last_dim
backward). The output and its gradient are replicated; rank r takes its chunk of the gradient."""
import torch
import torch.distributed as dist

from column_parallel_train import example_inputs, reference  # noqa: F401
from row_parallel_train import gather_along_last_dim

MODE = "train_step"
WORLD_SIZE = 2
SHARDING = {"w": ("split", 0), "b": ("split", 0), "grad_w": ("split", 0), "grad_b": ("split", 0)}


def split_along_last_dim(t, rank, world_size):
    return torch.split(t, t.shape[-1] // world_size, dim=-1)[rank].contiguous()


def production(rank, world_size, x, w, b, gy):
    y_parallel = torch.matmul(x, w.t()) + b
    y = gather_along_last_dim(y_parallel, world_size)
    loss = (y * gy).sum()
    gy_parallel = split_along_last_dim(gy, rank, world_size)
    grad_x = gy_parallel.matmul(w)
    dist.all_reduce(grad_x)
    grad_w = gy_parallel.t().matmul(x)
    grad_b = gy_parallel.sum(dim=0)
    return loss, grad_x, grad_w, grad_b
