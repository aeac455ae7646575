"""Planted bug in causal_attention_heads_tp4.py: the causal mask hides the diagonal too (triu(0)),
so each query's own key is masked and the first query sees no key at all."""
from causal_attention_heads_tp2 import SHARDING, example_inputs, reference  # noqa: F401
from causal_attention_heads_tp2 import production as correct

# EXPECT: not_equivalent
# NEVER: equivalent

WORLD_SIZE = 4


def production(rank, world_size, *inputs):
    return correct(rank, world_size, *inputs, diagonal=0)
