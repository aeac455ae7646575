"""Bad pair (issue 36 item 8): the FUSIONS definition of a custom op computes something else than
its kernel (relu(x - b) for a kernel relu(x + b)). The graphs would be decided through the wrong
definition; the capture stops at the definition's line, naming it and an element where the two differ."""
import torch

_lib = torch.library.Library("tvbadfusion", "DEF")
_lib.define("bias_relu(Tensor x, Tensor b) -> Tensor")
_lib.impl("bias_relu", lambda x, b: torch.relu(x + b), "CPU")


def bias_relu_definition(x, b):
    return torch.relu(x - b)


FUSIONS = {"tvbadfusion::bias_relu": bias_relu_definition}


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 6), torch.randn(6))


def reference(x, b):
    return torch.relu(x + b)


def production(x, b):
    return torch.ops.tvbadfusion.bias_relu(x, b)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: bad_fusion_disagrees.py:11
# EXPECT-REASON: FUSIONS['tvbadfusion::bias_relu'] does not compute what the kernel
