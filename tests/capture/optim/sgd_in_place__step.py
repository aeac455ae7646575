"""Planted bug in sgd_in_place.py: the step moves the parameter by the gradient instead of the
momentum buffer; p__updated must be refuted (buf__updated is still right)."""
from sgd_in_place import LR, MOMENTUM, WD, example_inputs, reference  # noqa: F401


def production(p, g, buf):
    d_p = g + WD * p
    buf.mul_(MOMENTUM).add_(d_p)
    p.sub_(LR * d_p)  # BUG: the step uses the gradient, not the momentum buffer


# EXPECT: not_equivalent
# EXPECT-OUTPUT: p__updated not_equivalent
# EXPECT-OUTPUT: buf__updated equivalent
