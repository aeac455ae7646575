"""A cross-entropy backward written in place, as a widely used vocab-parallel cross entropy writes
it on one rank: `g2 = g.view(-1); g2[idx] -= 1.0; g.mul_(scale)` (issue 23). Captured
functionalized and decided like the out-of-place form: proven equivalent (real), as
`(softmax(logits) - (target.unsqueeze(1) == arange(C)).float()) / N` is. `g2[idx] -= 1.0` is
index_put with accumulate=False at N positions, which leaves an element that two positions write
unspecified (Note [index_put semantics] in src/sem/index_ops.cpp); the positions
`arange(N) * C + target` are distinct exactly where target is in [0, C), where the reference does
not raise, and the proof assumes that range (reported). N and C stay small: each element's term
has O(N * N * C) nodes (N positions, each a dispatch over the N * C flat positions)."""
import torch

N, C = 4, 6


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(N, C), torch.tensor([1, 0, 5, 2]))


def reference(logits, target):
    # The one-hot matrix by scatter, which raises for a target outside [0, C), as F.cross_entropy
    # does. (`target.unsqueeze(1) == torch.arange(C)` would not, and the pair would not be
    # equivalent: with target [1, -1, 5, 2], production's position arange(N) * C + target of row 1
    # is row 0's last element, which it then decrements.)
    p = torch.softmax(logits, -1)
    one_hot = torch.zeros_like(p).scatter_(1, target.unsqueeze(1), 1.0)
    return (p - one_hot) / N


def production(logits, target):
    g = torch.softmax(logits, -1)
    g2 = g.view(-1)
    idx = torch.arange(N) * C + target
    g2[idx] -= 1.0
    g.mul_(1.0 / N)
    return g


# EXPECT: equivalent real
# NEVER: not_equivalent
