"""Megatron-LM's ColumnParallelLinear, forward and backward, at TP=2
(megatron/core/tensor_parallel/layers.py: LinearWithGradAccumulationAndAsyncCommunication.forward
and .backward without sequence parallelism; mappings.py: copy_to_tensor_model_parallel_region,
whose backward is _reduce). Rank r holds rows r of the weight and bias; the input is replicated;
the output and its incoming gradient gy stay split along the last dim (gather_output=False). The
loss <y, gy> is what backward(gy) differentiates; its pieces are summed over the ranks."""
import torch
import torch.distributed as dist
import torch.nn.functional as F

MODE = "train_step"
WORLD_SIZE = 2
SHARDING = {"x": "replicated", "w": ("split", 0), "b": ("split", 0), "gy": ("split", -1),
            "grad_w": ("split", 0), "grad_b": ("split", 0)}


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), torch.randn(8, 8, requires_grad=True),
            torch.randn(8, requires_grad=True), torch.randn(4, 8))


def reference(x, w, b, gy):
    return (F.linear(x, w, b) * gy).sum()


def production(rank, world_size, x, w, b, gy):
    y = torch.matmul(x, w.t()) + b
    loss = (y * gy).sum()
    dist.all_reduce(loss)
    grad_input = gy.matmul(w)
    dist.all_reduce(grad_input)  # copy_to_tensor_model_parallel_region's backward
    grad_weight = gy.t().matmul(x)
    grad_bias = gy.sum(dim=0)
    return loss, grad_input, grad_weight, grad_bias
