"""column_parallel_train.py at TP=4."""
from column_parallel_train import MODE, SHARDING, example_inputs, reference, production  # noqa: F401

WORLD_SIZE = 4
