"""A planted capture that is not the code: under a tracer production adds 1e-3, eagerly it does
not. The graphs differ (a refutation on them), the code that runs does not: the counterexample,
run through the two functions in the inputs' own dtypes, shows no difference, so the output is
unknown, "the capture is not the code that runs", never not_equivalent (Note [A refutation
reproduces on the code] in src/capture/torchtv_capture/code_runs.py)."""
import torch
from torch.utils._python_dispatch import _get_current_dispatch_mode


def _being_traced():
    # make_fx's mode, by name: the eager cross-check runs under a dispatch mode of its own
    # (Note [Float64 evidence only from float64 runs]), which is not a tracer
    return type(_get_current_dispatch_mode()).__name__ == "ProxyTorchDispatchMode"


def example_inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 33),)


def reference(x):
    return x * 0.1


def production(x):
    if _being_traced():
        return x * 0.1 + 1e-3
    return x * 0.1


# EXPECT: unknown
# EXPECT-REASON: the graphs differ on this input but the code does not
# NEVER: not_equivalent
# NEEDS-CODE: its expectation rests on running the functions on the graphs' counterexample (verify does; check on a capture cannot)
