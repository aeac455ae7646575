"""Planted bug in mlp_train.py at TP=4: fc1's backward does not all-reduce the input gradient."""
import torch
import torch.distributed as dist
import torch.nn.functional as F

from mlp_train import MODE, SHARDING, example_inputs, reference  # noqa: F401

WORLD_SIZE = 4


def production(rank, world_size, x, w1, b1, w2, b2, gy):
    h_pre = torch.matmul(x, w1.t()) + b1
    h = F.gelu(h_pre)
    y_parallel = torch.matmul(h, w2.t())
    dist.all_reduce(y_parallel)
    y = y_parallel + b2
    loss = (y * gy).sum()
    grad_h = gy.matmul(w2)
    grad_w2 = gy.t().matmul(h)
    grad_b2 = gy.sum(dim=0)
    grad_h_pre = torch.ops.aten.gelu_backward(grad_h, h_pre)
    grad_x = grad_h_pre.matmul(w1)
    grad_w1 = grad_h_pre.t().matmul(x)
    grad_b1 = grad_h_pre.sum(dim=0)
    return loss, grad_x, grad_w1, grad_b1, grad_w2, grad_b2


# EXPECT: not_equivalent
# EXPECT-OUTPUT: grad_x not_equivalent
# EXPECT-REASON: r0_mm_6
