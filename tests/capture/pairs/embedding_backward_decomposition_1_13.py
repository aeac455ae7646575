"""embedding_dense_backward against torch 1.13's decomposition of it, padding_idx 0 (BERT's pad
token). Reference: ATen's kernel, which raises nowhere: it drops an id equal to padding_idx and
every id outside [0, 6). Production: torch 1.13's torch/_decomp/decompositions.py
embedding_dense_backward, called as it is: ids equal to padding_idx masked to 0, then index_put
with accumulate, which counts -1 from the end. No range is assumed (the bundled definition's
one_hot used to give "%indices is an index in [0, 6)"): refuted at a negative id (Note
[Reference kernel domains] in src/verify/input_domains.h)."""
import torch
from torch._decomp import decompositions

N, V, D = 4, 6, 3


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(N, D), torch.tensor([0, 3, 1, 5]))


def reference(grad, indices):
    return torch.ops.aten.embedding_dense_backward(grad, indices, V, 0, False)


def production(grad, indices):
    return decompositions.embedding_dense_backward(grad, indices, V, 0, False)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
# NEVER: equivalent
# TORCH-ONLY: 1.13 (it reproduces torch 1.13's decomposition of embedding_dense_backward)
