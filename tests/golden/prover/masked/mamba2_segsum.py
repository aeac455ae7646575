"""Mamba-2's stable segment sum against its naive form, both through exp.

Follows state-spaces/mamba mamba_ssm/modules/ssd_minimal.py: `segsum_unstable` (the naive form:
differences of one cumulative sum, masked to -inf above the diagonal) and `segsum` (the stable
form: the input repeated along a new last dim, zeroed on and above the diagonal, summed
cumulatively along the repeated dim, then masked to -inf above the diagonal), each followed by
exp, as ssd_minimal_discrete computes L = exp(segsum(A)). Einops' repeat is written as expand.
exp(-inf) = 0 on both sides (Note [Extended reals at level real]); over the reals the two cumulative
sums agree wherever the mask keeps the element."""
import torch

# EXPECT: equivalent real
# NEVER: not_equivalent


def example_inputs():
    torch.manual_seed(0)
    return (-torch.rand(2, 3, 6),)


def segsum_unstable(x):
    t = x.size(-1)
    x_cumsum = torch.cumsum(x, dim=-1)
    x_segsum = x_cumsum[..., :, None] - x_cumsum[..., None, :]
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool), diagonal=0)
    return x_segsum.masked_fill(~mask, -torch.inf)


def segsum(x, diagonal=-1):
    # diagonal: the last diagonal the first mask keeps (-1: strictly below, as ssd_minimal.py)
    t = x.size(-1)
    x = x[..., None].expand(*x.shape, t)
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool), diagonal=diagonal)
    x = x.masked_fill(~mask, 0)
    x_segsum = torch.cumsum(x, dim=-2)
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool), diagonal=0)
    return x_segsum.masked_fill(~mask, -torch.inf)


def reference(a):
    return torch.exp(segsum_unstable(a))


def production(a):
    return torch.exp(segsum(a))
