"""masked_input_index_put.py with a planted bug in production: the rows of the masked ids are not
zeroed after the lookup (Megatron's `output_parallel[input_mask, :] = 0.0` left out), so an id
outside this rank's range gets row 0 of the shard instead of zeros."""
import torch
import torch.nn.functional as F

from masked_input_index_put import END, START, example_inputs, reference  # noqa: F401


def production(ids, weight):
    input_mask = (ids < START) | (ids >= END)
    masked_input = torch.where(input_mask, torch.zeros_like(ids), ids - START)
    return F.embedding(masked_input, weight)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
