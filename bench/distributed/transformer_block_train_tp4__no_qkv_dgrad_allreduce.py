"""Planted bug in transformer_block_train.py at TP=4: linear_qkv's backward does not all-reduce the
input gradient (each rank's LayerNorm backward reads its own heads' part of it)."""
from transformer_block_train import MODE, SHARDING, example_inputs, reference  # noqa: F401
from transformer_block_train import production as correct

WORLD_SIZE = 4


def production(rank, world_size, *inputs):
    return correct(rank, world_size, *inputs, bug="no_qkv_dgrad_allreduce")


# EXPECT: not_equivalent
# EXPECT-OUTPUT: grad_x not_equivalent
