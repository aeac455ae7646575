"""megatron_bias_gelu.py with a planted bug: the backward's slope constant without its factor 2
(0.0535161122 for sqrt(2/pi) * 3 * 0.044715: a wrong scale)."""
from megatron_bias_gelu import MODE, example_inputs, reference  # noqa: F401
from megatron_bias_gelu import production as correct_production


def production(y, bias, c):
    return correct_production(y, bias, c, slope=0.0535161122)
