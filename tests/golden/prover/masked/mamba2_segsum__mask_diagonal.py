"""mamba2_segsum.py with a planted bug: the stable form's first mask keeps the diagonal too
(tril(0) instead of tril(-1)), so each segment sum also counts its first element."""
from mamba2_segsum import example_inputs, reference, segsum  # noqa: F401
import torch

# EXPECT: not_equivalent
# NEVER: equivalent


def production(a):
    return torch.exp(segsum(a, diagonal=0))
