"""Forward-mode pair: tuple outputs, a small tensor constant, a multi-output op with an
integer output, and keyword/default arguments."""
import torch
import torch.nn.functional as F

MODE = "forward"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(3, 8), torch.randn(8))


def reference(x, scale):
    y = F.layer_norm(x, (8,)) * scale
    m, idx = torch.max(y, dim=-1)
    return y.softmax(-1), m, idx


def production(x, scale):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    y = (x - mu) / torch.sqrt(var + 1e-5) * scale
    offs = torch.tensor([0.0, 0.0, 0.0]).unsqueeze(-1)
    m, idx = (y + offs).max(dim=-1)
    e = torch.exp(y - y.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True), m, idx


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent real
