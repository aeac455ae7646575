"""A tensor-parallel MLP block, forward and backward, at TP=2, in the shape of Megatron-LM's MLP
(megatron/core/transformer/mlp.py: linear_fc1 a ColumnParallelLinear without gather_output, the
activation on the rank's slice of the hidden features, linear_fc2 a RowParallelLinear with
input_is_parallel=True; the backward of each as in tensor_parallel/layers.py and mappings.py:
fc2's reduce forward is the identity backward, fc1's copy is an all-reduce of the input gradient)."""
import torch
import torch.distributed as dist
import torch.nn.functional as F

MODE = "train_step"
WORLD_SIZE = 2
SHARDING = {"w1": ("split", 0), "b1": ("split", 0), "w2": ("split", 1),
            "grad_w1": ("split", 0), "grad_b1": ("split", 0), "grad_w2": ("split", 1)}


def example_inputs():
    torch.manual_seed(0)
    d, h = 8, 16
    return (torch.randn(4, d, requires_grad=True), torch.randn(h, d, requires_grad=True),
            torch.randn(h, requires_grad=True), torch.randn(d, h, requires_grad=True),
            torch.randn(d, requires_grad=True), torch.randn(4, d))


def reference(x, w1, b1, w2, b2, gy):
    return (F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2) * gy).sum()


def production(rank, world_size, x, w1, b1, w2, b2, gy):
    h_pre = torch.matmul(x, w1.t()) + b1           # fc1, the rank's hidden features
    h = F.gelu(h_pre)
    y_parallel = torch.matmul(h, w2.t())           # fc2, a partial sum over the hidden features
    dist.all_reduce(y_parallel)                    # reduce_from_tensor_model_parallel_region
    y = y_parallel + b2
    loss = (y * gy).sum()
    grad_h = gy.matmul(w2)
    grad_w2 = gy.t().matmul(h)
    grad_b2 = gy.sum(dim=0)
    grad_h_pre = torch.ops.aten.gelu_backward(grad_h, h_pre)
    grad_x = grad_h_pre.matmul(w1)
    dist.all_reduce(grad_x)                        # copy_to_tensor_model_parallel_region's backward
    grad_w1 = grad_h_pre.t().matmul(x)
    grad_b1 = grad_h_pre.sum(dim=0)
    return loss, grad_x, grad_w1, grad_b1, grad_w2, grad_b2
