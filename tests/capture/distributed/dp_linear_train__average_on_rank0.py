"""Planted bug in dp_linear_train.py: the bias gradient is averaged over the ranks on rank 0 only
(the division sits under the `if rank == 0` that guards logging). Rank 0's copy is right, rank 1
steps with twice the gradient: refuted as rank 1's copy (Note [Every rank's copy of a replicated
output] in src/capture/torchtv_capture/world.py), which reading rank 0 alone would miss."""
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
    grad_w = g.t().matmul(x)
    grad_b = g.sum(dim=0)
    dist.all_reduce(grad_w)
    dist.all_reduce(grad_b)
    grad_w = grad_w / world_size
    if rank == 0:
        grad_b = grad_b / world_size
    return loss, grad_x, grad_w, grad_b


# EXPECT: not_equivalent
# EXPECT-OUTPUT: grad_b equivalent
# EXPECT-OUTPUT: grad_b_rank1 not_equivalent
