"""Planted bug in dp_linear_train.py: the weight gradient is scaled by 1/world_size twice (once
more after the all-reduce's average)."""
import torch
import torch.distributed as dist

from dp_linear_train import MODE, WORLD_SIZE, SHARDING, example_inputs, reference  # noqa: F401


def production(rank, world_size, x, w, b, gy):
    local_batch = x.shape[0]
    y = torch.matmul(x, w.t()) + b
    loss = (y * gy).sum(-1).mean()
    dist.all_reduce(loss)
    loss = loss / world_size
    g = gy / local_batch
    grad_x = g.matmul(w) / world_size
    grad_w = g.t().matmul(x) / world_size
    grad_b = g.sum(dim=0)
    dist.all_reduce(grad_w)
    dist.all_reduce(grad_b)
    grad_w = grad_w / world_size
    grad_b = grad_b / world_size
    return loss, grad_x, grad_w, grad_b


# EXPECT: not_equivalent
# EXPECT-OUTPUT: grad_w not_equivalent
