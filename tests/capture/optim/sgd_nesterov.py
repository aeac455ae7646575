"""SGD with Nesterov momentum (torch 1.13): the foreach step computes the Nesterov direction with
`torch._foreach_add_(grads, bufs, alpha=momentum)`, into the caller's gradients (p.grad), which
the for-loop step leaves alone."""
from sgd_momentum import example_inputs  # noqa: F401
from sgd_momentum import production as sgd_production
from sgd_momentum import reference as sgd_reference


def reference(p0, p1, g0, g1, buf0, buf1):
    return sgd_reference(p0, p1, g0, g1, buf0, buf1, nesterov=True)


def production(p0, p1, g0, g1, buf0, buf1):
    return sgd_production(p0, p1, g0, g1, buf0, buf1, nesterov=True)

# EXPECT: not_equivalent
# EXPECT-REASON: production modifies its input %g0 in place
