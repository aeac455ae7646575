"""Bad pair: production round-trips a per-row scale through a Python list (line 18), as
quantization code that computes its scale on the host does. make_fx records the new tensor as a
constant holding the scale at example_inputs(), so the graph would not follow its inputs."""
import torch


def example_inputs():
    return (torch.randn(4, 8),)


def reference(x):
    scale = x.abs().amax(dim=1, keepdim=True) / 127
    return torch.round(x / scale) * scale


def production(x):
    amax = x.abs().amax(dim=1, keepdim=True)
    scale = torch.tensor(amax.tolist()) / 127
    return torch.round(x / scale) * scale


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: Tensor.tolist() of a tensor computed from the inputs
