"""Softmax cross-entropy train step with integer class targets (mean over tokens). Reference:
F.cross_entropy with autograd. Production: max-shifted log-softmax, the loss picked by a one-hot
mask, gradient (softmax - one_hot) / T. A seed of tools/metamorphic (issue 18)."""
import torch
import torch.nn.functional as F

MODE = "train_step"
T, V = 4, 8
# F.cross_entropy also accepts ignore_index (-100), which this production does not skip: the pair is
# equivalent on the targets in range only, by the user's word (Note [Declared input domains]).
ASSUME = {"y": "in [0, %d)" % V}


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(T, V, requires_grad=True), torch.randint(0, V, (T,)))


def reference(logits, y):
    return F.cross_entropy(logits, y)


def production(logits, y):
    m = logits.max(-1, keepdim=True).values
    z = logits - m
    logp = z - torch.log(torch.exp(z).sum(-1, keepdim=True))
    onehot = (y[:, None] == torch.arange(logits.shape[-1])).to(logits.dtype)
    loss = -(logp * onehot).sum() / logits.shape[0]
    glogits = (torch.exp(logp) - onehot) / logits.shape[0]
    return loss, glogits
