"""llama_rope_vs_rotate_half.py with a planted bug: rotate_half with the wrong sign
(cat(x2, -x1)), which rotates every pair the other way."""
from llama_rope_vs_rotate_half import example_inputs, hf_rope, reference  # noqa: F401

# EXPECT: not_equivalent
# NEVER: equivalent


def production(x, wq):
    return hf_rope(x, wq, sign=-1.0)
