// Where random refutation draws each graph input from (Note [Input domains]).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

// Note [Input domains]
// Random refutation (refute.h) draws inputs from a few fixed distributions.
// An integer input that indexes a dim (gather's index, nll_loss's target, an
// embedding's ids: the registry's `indexes` column) is out of range under them
// whenever the dim has fewer than 4 entries ("small integers" draw [0, 4)), and
// the evaluator skips an input with an index out of range: a cross-entropy
// over 3 classes was never evaluated at all, and classes past 3 never drawn.
// One more distribution therefore draws each such input in [0, size of the
// dim), the smallest size over all its index uses, and draws a float input
// that a log, sqrt or rsqrt reads (the `positiveArg` column) positive. The walk
// from an input to its uses passes through ops that only move elements (the
// `elements` column: view, permute, slice, ...) and dtype conversions.
struct InputDomain {
  std::optional<int64_t> indexBound;  // indices into a dim of this size
  bool positive = false;              // read by an op real-valued only for positive values
};

// One domain per graph input, in order.
std::vector<InputDomain> inputDomains(const Graph &g);
// Whether any input has a domain the fixed distributions do not draw from.
bool anyDomain(const std::vector<InputDomain> &domains);

}  // namespace torchtv
