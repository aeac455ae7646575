"""megatron_vocab_xent_smoothing.py with a planted bug: torch's smoothing 0.1 passed to Megatron
as is, which then scales it by K / (K - 1) (a wrong scale: 0.125 of the mass instead of 0.1)."""
from megatron_vocab_xent_smoothing import ALPHA, ASSUME, MODE, example_inputs, reference  # noqa: F401
from megatron_vocab_xent import megatron_vocab_parallel_xent


def production(logits, target):
    return megatron_vocab_parallel_xent(logits, target, label_smoothing=ALPHA)
