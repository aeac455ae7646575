"""Ranks that call different collectives at the same position: rank 0 all-reduces where the
others broadcast. A capture error naming both calls, never a composed graph."""
import torch
import torch.distributed as dist

WORLD_SIZE = 2


def example_inputs():
    return (torch.randn(4),)


def reference(x):
    return x * 2


def production(rank, world_size, x):
    y = x.clone()
    if rank == 0:
        dist.all_reduce(y)
    else:
        dist.broadcast(y, src=0)
    return y


# EXPECT: error
# EXPECT-REASON: the ranks call different collectives: collective #1 is broadcast on rank 1
