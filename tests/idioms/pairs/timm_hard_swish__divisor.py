"""timm_hard_swish.py with a planted bug: relu6(x + 3) divided by 5."""
import timm_hard_swish
from timm_hard_swish import MODE, example_inputs, reference  # noqa: F401


def production(x):
    return timm_hard_swish.production(x, divisor=5.0)
