// Decides whether two graphs compute the same outputs (the engine's entry point).
#pragma once

#include "ir/graph.h"
#include "src/verify/verdict.h"

namespace torchtv {

struct CheckOptions {
  RequiredLevel require = RequiredLevel::Real;
};

// Compares reference and production output by output. Throws InputError when
// the two graphs cannot be compared at all (different inputs or output counts).
CheckResult checkGraphs(const Graph &reference, const Graph &production, const CheckOptions &options);

}  // namespace torchtv
