"""Planted bug: the LoRA gradient of lora_empty_addmm.py, written into uninitialized memory, is
off by 50% (alpha=0.5)."""
import torch

from lora_empty_addmm import example_inputs, reference  # noqa: F401


def production(A, x, y):
    return torch.empty_like(A).addmm_(x, y, beta=0, alpha=0.5)


# EXPECT: not_equivalent
