"""Megatron-LM's VocabParallelEmbedding.forward (megatron/core/tensor_parallel/layers.py): the ids
outside this rank's vocabulary range are masked, shifted to 0, looked up, and their rows zeroed with
`masked_input[input_mask] = 0` and `output_parallel[input_mask, :] = 0.0` (index_put with a bool
index). Production writes the same with torch.where."""
import torch
import torch.nn.functional as F

START, END = 4, 10  # this rank's vocabulary range [START, END)


def example_inputs():
    torch.manual_seed(0)
    return (torch.randint(0, 16, (3, 5)), torch.randn(END - START, 8))


def reference(ids, weight):
    input_mask = (ids < START) | (ids >= END)
    masked_input = ids.clone() - START
    masked_input[input_mask] = 0
    output_parallel = F.embedding(masked_input, weight)
    output_parallel[input_mask, :] = 0.0
    return output_parallel


def production(ids, weight):
    input_mask = (ids < START) | (ids >= END)
    masked_input = torch.where(input_mask, torch.zeros_like(ids), ids - START)
    out = F.embedding(masked_input, weight)
    return torch.where(input_mask[..., None], torch.zeros_like(out), out)
