"""softplus_huber_train.py with a planted bug in production: the softplus derivative taken as
1 - sigmoid(h) (z / (z + 1) written as 1 / (z + 1))."""
from softplus_huber_train import MODE, example_inputs, reference  # noqa: F401
from softplus_huber_train import production as correct_production


def production(x, w, t):
    return correct_production(x, w, t, bug="sigmoid_grad")


# Expectations for tests/golden/run_golden.py (torchtv verify on this file):
# EXPECT: not_equivalent
