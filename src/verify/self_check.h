// The self-check: an `equivalent` verdict re-checked by running both graphs.
#pragma once

#include "ir/graph.h"
#include "src/verify/verdict.h"

namespace torchtv {

// Note [Self-check]
// For every output the prover calls equivalent, both graphs are evaluated on
// seeded random inputs of every kind (refute.h), special values included for
// bitwise outputs: bitwise outputs must agree bit for bit in the graphs' own
// dtypes (every NaN equal to every NaN; -0.0 differs from 0.0), real outputs
// must agree in long double within 1e-9 of their scale (finite inputs only:
// the real level says nothing about NaN and infinities). A disagreement means
// the prover (or the evaluator) is wrong; the check command then reports it.
SelfCheck selfCheck(const Graph &reference, const Graph &production, const CheckResult &result);

}  // namespace torchtv
