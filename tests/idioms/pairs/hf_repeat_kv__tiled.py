"""hf_repeat_kv.py with a planted bug: `k.repeat(1, n_rep, 1, 1)` tiles the heads (h0 h1 h0 h1 ...)
where GQA wants each key/value head repeated in place (h0 h0 h1 h1 ...)."""
from hf_repeat_kv import MODE, N_REP, example_inputs, reference  # noqa: F401


def production(k):
    return k.repeat(1, N_REP, 1, 1)
