// The self-check: an `equivalent` verdict re-checked by running both graphs.
#pragma once

#include "ir/capture_evidence.h"
#include "ir/graph.h"
#include "src/verify/verdict.h"

namespace torchtv {

// Note [Self-check]
// For every output the prover calls equivalent, both graphs are evaluated on
// seeded random inputs of every kind (refute.h), special values included for
// bitwise outputs: bitwise outputs must agree bit for bit in the graphs' own
// dtypes (every NaN equal to every NaN; -0.0 differs from 0.0), real outputs
// must agree in long double (Note [When values differ], row 4) (finite inputs only:
// the real level says nothing about NaN and infinities). Bitwise outputs are
// also replayed through LibTorch's kernels on the original graphs (when the
// LibTorch module loads and knows every op): a bit-for-bit claim is about the
// kernels that run, not only torchtv's evaluator. What the runs saw is
// returned as run evidence per output, which applyRunEvidence holds against
// the verdict (Note [Cross-checks]): a bit difference demotes to real, a real
// difference beyond that is an internal inconsistency.
SelfCheck selfCheck(const Graph &origReference, const Graph &origProduction, const Graph &reference,
                    const Graph &production, const CheckResult &result, EagerEvidence &runs);

}  // namespace torchtv
