"""Megatron-LM's vocab-parallel cross entropy with label smoothing (one rank) against
F.cross_entropy(label_smoothing=0.1).

Megatron (megatron/core/tensor_parallel/cross_entropy.py, _VocabParallelCrossEntropy.forward,
`if label_smoothing > 0`) spreads the smoothing mass over the K - 1 wrong classes: it scales its
argument by K / (K - 1). torch spreads it over all K classes. Passing Megatron
alpha * (K - 1) / K therefore gives torch's loss for alpha; the constants are written two ways
(0.1 against 0.1 * 4 / 5 * 5 / 4) and agree up to their rounding."""
import torch.nn.functional as F

from megatron_vocab_xent import ASSUME, MODE, example_inputs, megatron_vocab_parallel_xent  # noqa: F401

ALPHA = 0.1


def reference(logits, target):
    return F.cross_entropy(logits, target, label_smoothing=ALPHA)


def production(logits, target):
    k = logits.size(-1)
    return megatron_vocab_parallel_xent(logits, target, label_smoothing=ALPHA * (k - 1) / k)
