"""mlp_train.py at TP=4."""
from mlp_train import MODE, SHARDING, example_inputs, reference, production  # noqa: F401

WORLD_SIZE = 4
