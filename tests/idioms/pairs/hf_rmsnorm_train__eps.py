"""hf_rmsnorm_train.py with a planted bug: the epsilon 1e-5 (another model's config) for 1e-6."""
import hf_rmsnorm_train
from hf_rmsnorm_train import MODE, example_inputs, reference  # noqa: F401


def production(x, weight, dy):
    return hf_rmsnorm_train.production(x, weight, dy, eps=1e-5)
