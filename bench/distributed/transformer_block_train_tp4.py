"""transformer_block_train.py at TP=4."""
from transformer_block_train import MODE, SHARDING, example_inputs, reference, production  # noqa: F401

# XFAIL: one head per rank: only grad_b2 is proven at TP=4 (bench/distributed/README.md)
# EXPECT: equivalent
# NEVER: not_equivalent

WORLD_SIZE = 4
