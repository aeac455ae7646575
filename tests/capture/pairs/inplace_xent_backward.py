"""A cross-entropy backward written in place, as a widely used vocab-parallel cross entropy writes
it on one rank: `g2 = g.view(-1); g2[idx] -= 1.0; g.mul_(scale)` (issue 23). Captured
functionalized and decided like the out-of-place form."""
import torch

N, C = 4, 6


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(N, C), torch.tensor([1, 0, 5, 2]))


def reference(logits, target):
    p = torch.softmax(logits, -1)
    one_hot = (target.unsqueeze(1) == torch.arange(C)).to(logits.dtype)
    return (p - one_hot) / N


def production(logits, target):
    g = torch.softmax(logits, -1)
    g2 = g.view(-1)
    idx = torch.arange(N) * C + target
    g2[idx] -= 1.0
    g.mul_(1.0 / N)
    return g


# EXPECT: equivalent
# NEVER: not_equivalent
# XFAIL: captured and refuted like the out-of-place form, but not yet proven: index_put with accumulate=false writes at data-dependent positions, which the prover cannot show distinct (Note [index_put semantics])
