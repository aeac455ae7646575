"""megatron_vocab_xent.py with a planted bug: the backward subtracts the one-hot at another row's
target (a swapped index in calculate_gradients)."""
from megatron_vocab_xent import ASSUME, MODE, example_inputs, megatron_vocab_parallel_xent, reference  # noqa: F401


def production(logits, target):
    return megatron_vocab_parallel_xent(logits, target, bug="target_row")
