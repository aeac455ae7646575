"""embedding_padding_idx.py with a planted bug: the padding row receives gradient (production
ignores padding_idx in its backward)."""
from embedding_padding_idx import MODE, example_inputs, gather_embedding, reference  # noqa: F401


def production(ids, weight, c):
    return gather_embedding(ids, weight, c, zero_padding=False)
