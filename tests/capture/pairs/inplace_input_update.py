"""Production modifies its input in place through an alias: `.float()` of an f32 tensor returns
the tensor itself, so `y.sub_(1)` changes the caller's `logits` (Note [Input mutations]). The
return values agree; the side effect is behaviour the reference does not have."""
import torch


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 6),)


def reference(logits):
    return (logits - 1.0) * 2


def production(logits):
    y = logits.float()
    y.sub_(1.0)
    return y * 2


# EXPECT: not_equivalent
# EXPECT-OUTPUT: out equivalent
# EXPECT-OUTPUT: logits__updated not_equivalent
# EXPECT-REASON: production modifies its input %logits in place
