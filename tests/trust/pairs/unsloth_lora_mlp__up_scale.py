"""unsloth_lora_mlp.py with a planted bug: the up projection's LoRA B gradient lacks the LoRA
scale s (a wrong scale, as an addmm_ without alpha=upS would give)."""
from unsloth_lora_mlp import MODE, example_inputs, reference  # noqa: F401
from unsloth_lora_mlp import production as correct_production


def production(*args):
    return correct_production(*args, bug="up_scale")
