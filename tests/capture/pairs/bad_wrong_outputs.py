"""Bad pair: production returns 3 tensors, the reference graph has 4 outputs."""
import torch
import torch.nn.functional as F

MODE = "train_step"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 8, requires_grad=True), torch.randn(8, requires_grad=True),
            torch.randn(8, requires_grad=True))


def reference(x, w, b):
    return F.layer_norm(x, (8,), w, b).sum()


def production(x, w, b):
    y = F.layer_norm(x, (8,), w, b)
    loss = y.sum()
    return loss, torch.zeros_like(x), torch.zeros_like(w)


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: bad_wrong_outputs.py:21
# EXPECT-REASON: returns 3 tensors
