"""causal_attention_heads_tp2.py at TP=4: one head per rank."""
from causal_attention_heads_tp2 import SHARDING, example_inputs, production, reference  # noqa: F401

# EXPECT: equivalent real

WORLD_SIZE = 4
