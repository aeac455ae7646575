"""mistral_sliding_window.py with a planted bug: the triu cut at -window, one position too wide."""
import mistral_sliding_window
from mistral_sliding_window import MODE, WINDOW, example_inputs, reference  # noqa: F401


def production(scores):
    return mistral_sliding_window.production(scores, window=WINDOW + 1)
