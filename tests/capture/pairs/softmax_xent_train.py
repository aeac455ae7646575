"""Softmax cross-entropy train step (probability targets, mean over tokens). Reference:
F.cross_entropy with autograd (_log_softmax and its backward). Production: log-probabilities
as logits - logsumexp(logits), gradient (softmax * sum(y) - y) / T."""
import math

import torch
import torch.nn.functional as F

MODE = "train_step"

T, V = 4, 8


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(T, V, requires_grad=True), torch.softmax(torch.randn(T, V), -1))


def reference(logits, y):
    return F.cross_entropy(logits, y)


def production(logits, y, bug="none"):
    # bug: the planted bug of a variant (softmax_xent_train__BUG.py), "none" here. tiny_term: an extra
    # 1e-7 * logits in the gradient; reduction_dim: the targets are summed over tokens, not over the
    # vocabulary.
    logp = logits - logits.logsumexp(-1, keepdim=True)
    loss = -(y * logp).sum() / logits.shape[0]
    ysum = y.sum(0 if bug == "reduction_dim" else -1, keepdim=True)
    glogits = (torch.exp(logp) * ysum - y) / logits.shape[0]
    if bug == "tiny_term":
        glogits = glogits + 1e-7 * logits
    return loss, glogits


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: equivalent real
