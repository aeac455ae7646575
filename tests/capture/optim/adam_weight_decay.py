"""Adam with weight decay (torch 1.13): the foreach step adds the decay into the caller's gradients
(`torch._foreach_add_(grads, params, alpha=weight_decay)`), the for-loop step into a new tensor."""
from adam import example_inputs  # noqa: F401
from adam import production as adam_production
from adam import reference as adam_reference


def reference(p0, p1, g0, g1, m0, m1, v0, v1):
    return adam_reference(p0, p1, g0, g1, m0, m1, v0, v1, weight_decay=0.01)


def production(p0, p1, g0, g1, m0, m1, v0, v1):
    return adam_production(p0, p1, g0, g1, m0, m1, v0, v1, weight_decay=0.01)

# EXPECT: not_equivalent
# EXPECT-REASON: production modifies its input %g0 in place
