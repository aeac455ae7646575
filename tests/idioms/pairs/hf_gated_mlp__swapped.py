"""hf_gated_mlp.py with a planted bug: the fused projection's halves read the wrong way round
(SiLU applied to the up projection)."""
import hf_gated_mlp
from hf_gated_mlp import MODE, example_inputs, reference  # noqa: F401


def production(x, w_gate, w_up, w_down):
    return hf_gated_mlp.production(x, w_gate, w_up, w_down, swap=True)
