"""Embedding with padding_idx: F.embedding(padding_idx=0) under autograd against a gather and a
hand-written scatter-add backward that leaves the padding row's gradient zero (as
torch's embedding_dense_backward does for padding_idx)."""
import torch
import torch.nn.functional as F

MODE = "train_step"
PAD = 0


def example_inputs():
    torch.manual_seed(0)
    return torch.tensor([[3, 0, 5, 1], [0, 2, 2, 4]]), torch.randn(6, 3, requires_grad=True), torch.randn(2, 4, 3)


def reference(ids, weight, c):
    return (F.embedding(ids, weight, padding_idx=PAD) * c).sum()


def gather_embedding(ids, weight, c, zero_padding=True):
    # zero_padding: keep the padding row's gradient zero (False: the twin's bug)
    loss = (weight[ids] * c).sum()
    # scatter-add of the output gradient into the rows, as torch's decomposition of
    # embedding_dense_backward writes it (index_put with accumulate)
    grad = torch.zeros_like(weight).index_put((ids.reshape(-1),), c.reshape(-1, weight.shape[-1]), accumulate=True)
    if zero_padding:
        grad = grad * (torch.arange(weight.shape[0]) != PAD).to(weight.dtype)[:, None]
    return loss, grad


def production(ids, weight, c):
    return gather_embedding(ids, weight, c)
