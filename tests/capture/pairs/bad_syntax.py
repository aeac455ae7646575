"""Bad pair: a syntax error on line 9."""
import torch


def example_inputs():
    return (torch.randn(3),)


def reference(x)
    return x * 2


def production(x):
    return x + x


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: error
# EXPECT-REASON: bad_syntax.py:9
# EXPECT-REASON: syntax error
