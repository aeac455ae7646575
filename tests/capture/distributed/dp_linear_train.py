"""Data parallelism in the manner of torch's DistributedDataParallel and Megatron-LM's
DistributedDataParallel (megatron/core/distributed/: gradients all-reduced, then scaled by
1/data-parallel size, where the loss is a mean over the local batch): the batch is split over the
ranks, the weight replicated. The loss is the mean over the whole batch."""
import torch
import torch.distributed as dist
import torch.nn.functional as F

MODE = "train_step"
WORLD_SIZE = 2
SHARDING = {"x": ("split", 0), "gy": ("split", 0), "grad_x": ("split", 0)}


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(8, 4, requires_grad=True), torch.randn(3, 4, requires_grad=True),
            torch.randn(3, requires_grad=True), torch.randn(8, 3))


def reference(x, w, b, gy):
    return (F.linear(x, w, b) * gy).sum(-1).mean()


def production(rank, world_size, x, w, b, gy):
    local_batch = x.shape[0]
    y = torch.matmul(x, w.t()) + b
    loss = (y * gy).sum(-1).mean()
    dist.all_reduce(loss)
    loss = loss / world_size
    g = gy / local_batch                          # d(local mean)/dy
    grad_x = g.matmul(w) / world_size
    grad_w = g.t().matmul(x)
    grad_b = g.sum(dim=0)
    dist.all_reduce(grad_w)
    dist.all_reduce(grad_b)
    grad_w = grad_w / world_size
    grad_b = grad_b / world_size
    return loss, grad_x, grad_w, grad_b
