"""gqa_repeat_kv.py with a planted bug in production: `k.repeat(1, n_rep, 1, 1)` tiles the key heads
(0, 1, 0, 1, ...) where repeat_kv repeats each (0, 0, 0, 1, 1, 1): query head 1 meets key head 1."""
import torch

from gqa_repeat_kv import N_REP, example_inputs, reference  # noqa: F401


def production(q, k):
    return q @ k.repeat(1, N_REP, 1, 1).transpose(2, 3)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# EXPECT-REASON: replayed through LibTorch
