"""Megatron-LM's ColumnParallelLinear forward without gather_output
(megatron/core/tensor_parallel/layers.py, ColumnParallelLinear.forward; the matmul of
LinearWithGradAccumulationAndAsyncCommunication.forward): rank r holds rows r of the weight and
the bias (output features), multiplies the whole input by them; the output stays split along its
last dim. No collective in the forward (copy_to_tensor_model_parallel_region is the identity)."""
import torch
import torch.nn.functional as F

WORLD_SIZE = 2
SHARDING = {"x": "replicated", "w": ("split", 0), "b": ("split", 0), "out": ("split", -1)}


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(4, 8), torch.randn(6, 8), torch.randn(6)


def reference(x, w, b):
    return F.linear(x, w, b)


def production(rank, world_size, x, w, b):
    return torch.matmul(x, w.t()) + b
