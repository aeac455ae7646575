"""Bad pair: production builds a parameter and sets its storage to a value computed from the
inputs through `.data` (line 17), as weight-folding code that edits a module in place does.
make_fx records the parameter as a constant holding the value at example_inputs()."""
import torch


def example_inputs():
    return torch.randn(4, 8), torch.randn(8, 8), torch.rand(8) + 0.5


def reference(x, w, s):
    return x @ (w * s[:, None]).t()


def production(x, w, s):
    linear = torch.nn.Linear(8, 8, bias=False)
    linear.weight.data = w * s[:, None]
    return linear(x)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: assigning a tensor computed from the inputs to `.data`
