"""hf_rotary.py with a planted bug: the rotation applied the other way (sin negated), as when
rotate_half's halves are swapped."""
import hf_rotary
from hf_rotary import MODE, example_inputs, reference  # noqa: F401


def production(q, freqs):
    return hf_rotary.production(q, freqs, sign=-1.0)
