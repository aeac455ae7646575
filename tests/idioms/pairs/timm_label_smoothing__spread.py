"""timm_label_smoothing.py with a planted bug: the smoothing mass spread over the K - 1 wrong
classes' count (a sum divided by K - 1) where torch spreads it over all K."""
import timm_label_smoothing
from timm_label_smoothing import ASSUME, MODE, example_inputs, reference  # noqa: F401


def production(x, target):
    return timm_label_smoothing.label_smoothing_cross_entropy(x, target, spread=x.shape[-1] - 1)
