"""Planted bug in transformer_block_train.py at TP=2: linear_proj adds its bias on every rank
before the all-reduce, so the block adds it TP times."""
from transformer_block_train import MODE, SHARDING, example_inputs, reference  # noqa: F401
from transformer_block_train import production as correct

WORLD_SIZE = 2


def production(rank, world_size, *inputs):
    return correct(rank, world_size, *inputs, bug="proj_bias_every_rank")


# EXPECT: not_equivalent
# EXPECT-OUTPUT: loss not_equivalent
# EXPECT-REASON: all_reduce1_add
