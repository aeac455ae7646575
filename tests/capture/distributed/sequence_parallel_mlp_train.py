"""Megatron-LM's sequence parallelism around a tensor-parallel MLP, forward and backward, at TP=2
(megatron/core/tensor_parallel/layers.py with sequence_parallel=True; mappings.py:
gather_from_sequence_parallel_region = _gather_along_first_dim forward, reduce-scatter backward;
reduce_scatter_to_sequence_parallel_region = _reduce_scatter_along_first_dim forward, all-gather
backward; megatron/core/distributed/finalize_model_grads.py all-reduces the gradients of the
parameters marked sequence_parallel, the LayerNorm's and the row-parallel bias, over the TP group).
The tokens are split over the ranks outside the MLP; each rank normalizes its tokens, gathers all
of them for fc1, and fc2's partial sums are reduce-scattered back to the rank's tokens."""
import torch
import torch.distributed as dist
import torch.nn.functional as F

MODE = "train_step"
WORLD_SIZE = 2
SHARDING = {"x": ("split", 0), "gy": ("split", 0), "grad_x": ("split", 0),
            "w1": ("split", 0), "b1": ("split", 0), "w2": ("split", 1),
            "grad_w1": ("split", 0), "grad_b1": ("split", 0), "grad_w2": ("split", 1)}
EPS = 1e-5


def example_inputs():
    torch.manual_seed(0)
    t, d, h = 8, 8, 16
    return (torch.randn(t, d, requires_grad=True), torch.randn(d, requires_grad=True),
            torch.randn(d, requires_grad=True), torch.randn(h, d, requires_grad=True),
            torch.randn(h, requires_grad=True), torch.randn(d, h, requires_grad=True),
            torch.randn(d, requires_grad=True), torch.randn(t, d))


def reference(x, ln_w, ln_b, w1, b1, w2, b2, gy):
    z = F.layer_norm(x, x.shape[-1:], ln_w, ln_b, EPS)
    return (F.linear(F.gelu(F.linear(z, w1, b1)), w2, b2) * gy).sum()


def gather_along_first_dim(t, world_size):
    whole = torch.empty((t.shape[0] * world_size,) + tuple(t.shape[1:]), dtype=t.dtype)
    dist.all_gather_into_tensor(whole, t.contiguous())
    return whole


def reduce_scatter_along_first_dim(t, world_size):
    part = torch.empty((t.shape[0] // world_size,) + tuple(t.shape[1:]), dtype=t.dtype)
    dist.reduce_scatter_tensor(part, t.contiguous())
    return part


def production(rank, world_size, x, ln_w, ln_b, w1, b1, w2, b2, gy):
    z, mean, rstd = torch.ops.aten.native_layer_norm(x, [x.shape[-1]], ln_w, ln_b, EPS)
    z_total = gather_along_first_dim(z, world_size)               # fc1's sequence-parallel input
    h_pre = torch.matmul(z_total, w1.t()) + b1
    h = F.gelu(h_pre)
    y = reduce_scatter_along_first_dim(torch.matmul(h, w2.t()), world_size) + b2
    loss = (y * gy).sum()
    dist.all_reduce(loss)
    gy_total = gather_along_first_dim(gy, world_size)             # reduce-scatter's backward
    grad_w2 = gy_total.t().matmul(h)
    grad_b2 = gy.sum(dim=0)
    dist.all_reduce(grad_b2)                                      # a sequence-parallel parameter
    grad_h_pre = torch.ops.aten.gelu_backward(gy_total.matmul(w2), h_pre)
    grad_w1 = grad_h_pre.t().matmul(z_total)
    grad_b1 = grad_h_pre.sum(dim=0)
    grad_z = reduce_scatter_along_first_dim(grad_h_pre.matmul(w1), world_size)  # all-gather's backward
    grad_x, grad_ln_w, grad_ln_b = torch.ops.aten.native_layer_norm_backward(
        grad_z, x, [x.shape[-1]], mean, rstd, ln_w, ln_b, [True, True, True])
    dist.all_reduce(grad_ln_w)                                    # sequence-parallel parameters
    dist.all_reduce(grad_ln_b)
    return loss, grad_x, grad_ln_w, grad_ln_b, grad_w1, grad_b1, grad_w2, grad_b2
