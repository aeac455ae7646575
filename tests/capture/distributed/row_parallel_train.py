"""Megatron-LM's RowParallelLinear with input_is_parallel=False, forward and backward, at TP=2
(megatron/core/tensor_parallel/layers.py: RowParallelLinear.forward; mappings.py:
scatter_to_tensor_model_parallel_region = _split_along_last_dim forward, _gather_along_last_dim
backward; reduce_from_tensor_model_parallel_region = _reduce forward, identity backward). Rank r
holds columns r of the weight (input features); the replicated input is split along its last dim
on each rank, the partial products are all-reduced, and the bias is added once, after the reduce."""
import torch
import torch.distributed as dist
import torch.nn.functional as F

MODE = "train_step"
WORLD_SIZE = 2
SHARDING = {"w": ("split", 1), "grad_w": ("split", 1)}


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), torch.randn(6, 8, requires_grad=True),
            torch.randn(6, requires_grad=True), torch.randn(4, 6))


def reference(x, w, b, gy):
    return (F.linear(x, w, b) * gy).sum()


def gather_along_last_dim(t, world_size):
    whole = torch.empty((t.shape[0] * world_size,) + tuple(t.shape[1:]), dtype=t.dtype)
    dist.all_gather_into_tensor(whole, t.contiguous())
    return torch.cat(whole.chunk(world_size, dim=0), dim=-1).contiguous()


def production(rank, world_size, x, w, b, gy):
    x_parallel = torch.split(x, x.shape[-1] // world_size, dim=-1)[rank].contiguous()
    y_parallel = torch.matmul(x_parallel, w.t())
    dist.all_reduce(y_parallel)
    y = y_parallel + b
    loss = (y * gy).sum()
    grad_x_parallel = gy.matmul(w)
    grad_x = gather_along_last_dim(grad_x_parallel, world_size)
    grad_w = gy.t().matmul(x_parallel)
    grad_b = gy.sum(dim=0)
    return loss, grad_x, grad_w, grad_b
