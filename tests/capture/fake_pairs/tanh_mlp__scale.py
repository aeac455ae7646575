"""Shape-only pair with a planted bug in the middle of a chain, refuted by running the functions
at small_inputs(); the pair is then captured again at those shapes, where the counterexample is
shrunk and localized (Note [Reduced-shape graphs] in torchtv_capture/capture.py).
Planted bug (production only): the hidden activation is scaled by 1.001."""
import torch

N, D = 4096, 4096


def example_inputs():
    return (torch.empty(N, D, device="meta"), torch.empty(D, D, device="meta"))


def small_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8), torch.randn(8, 8))


def reference(x, w):
    h = torch.tanh(x @ w)
    return (h @ w.t()).sum(-1)


def production(x, w):
    h = torch.tanh(x @ w) * 1.001  # the planted bug
    return (h @ w.t()).sum(-1)
