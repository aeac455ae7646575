"""As traced_differs_from_eager.py, but the code that runs is wrong: the graphs are equal, the
eager runs differ beyond rounding. torchtv must not say equivalent: the functions differ on
example_inputs(), which refutes the pair (Note [Cross-checks]), and the reason names the internal
inconsistency (the graphs decided are not the code that runs)."""
from traced_differs_from_eager import _being_traced, example_inputs, reference  # noqa: F401


def production(x):
    if _being_traced():
        return x * 0.1
    return x * 0.1 + 1e-3


# EXPECT: not_equivalent
# EXPECT-REASON: internal inconsistency
# NEVER: equivalent
