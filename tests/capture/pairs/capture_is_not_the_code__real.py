"""capture_is_not_the_code.py with the difference in the code too: production adds 1e-3 whether
traced or not. The graphs refute the pair, and the counterexample, run through the two functions,
shows the difference: it stays not_equivalent, the reason saying it reproduced on the code."""
import torch

from capture_is_not_the_code import example_inputs, reference  # noqa: F401


def production(x):
    return x * 0.1 + 1e-3


# EXPECT: not_equivalent
# EXPECT-REASON: reproduced on the code
# NEEDS-CODE: its expectation rests on running the functions on the graphs' counterexample (verify does; check on a capture cannot)
