"""conv_bn_fold.py with a planted bug: the weights are folded with eps 1e-3 where the BatchNorm
uses 1e-5 (a wrong epsilon, as folding with a default instead of the layer's eps gives)."""
from conv_bn_fold import example_inputs, folded, reference  # noqa: F401


def production(x, conv_w, conv_b, mean, var, gamma, beta):
    return folded(x, conv_w, conv_b, mean, var, gamma, beta, eps=1e-3)
