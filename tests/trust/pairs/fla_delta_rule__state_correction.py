"""fla_delta_rule.py with a planted bug: each chunk's values skip the correction by the state of
the earlier chunks (u_i without - w_i S: a dropped term)."""
from fla_delta_rule import chunkwise, example_inputs, reference  # noqa: F401


def production(q, k, v, beta):
    return chunkwise(q, k, v, beta, correct_state=False)
