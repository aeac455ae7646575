"""Losses written out by hand, as training code does (the formulas of PyTorch's docs, in the stable
forms torch 1.13's decompositions use), against torch.nn.functional's losses, which torchtv reads
through those decompositions (fusions/decompositions.tvir): Huber (delta 0.5), soft margin, binary
cross-entropy on probabilities and on logits, each with mean reduction."""
import torch
import torch.nn.functional as F

DELTA = 0.5


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 6), torch.randn(4, 6), torch.rand(4, 6), torch.rand(4, 6))


def reference(x, t, p, y):
    return (F.huber_loss(x, t, delta=DELTA), F.soft_margin_loss(x, t.sign()),
            F.binary_cross_entropy(p, y), F.binary_cross_entropy_with_logits(x, y))


def huber(x, t, delta):
    d = (x - t).abs()
    return torch.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)).mean()


def production(x, t, p, y):
    soft_margin = torch.log1p(torch.exp(-t.sign() * x)).mean()
    # ATen clamps each log at -100 (binary_cross_entropy's kernel)
    bce = -(y * torch.clamp(torch.log(p), min=-100) + (1 - y) * torch.clamp(torch.log(1 - p), min=-100)).mean()
    m = torch.clamp(-x, min=0)
    bce_logits = ((1 - y) * x + m + torch.log(torch.exp(-m) + torch.exp(-x - m))).mean()
    return huber(x, t, DELTA), soft_margin, bce, bce_logits
