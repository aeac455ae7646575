// A refuting input made small, and the first intermediate value where
// production departs from the reference on it (Note [Minimal, localized
// counterexamples]).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/eval/concrete.h"
#include "src/verify/confirm.h"
#include "src/verify/refute.h"
#include "src/verify/verdict.h"

namespace torchtv {

// Note [Minimal, localized counterexamples]
// Shrinking: a confirmed refuting input is simplified while the confirmer
// still finds the same output differing on it. Delta debugging sets chunks of
// each floating input's nonzero entries to zero (halves, then quarters, ...),
// then rounds each floating input's values to integers, else to two
// significant digits. Integer inputs (indices, targets) are left as drawn: an
// index out of range would make the evaluation fail, not refute. At most
// kShrinkEvaluations candidate inputs are confirmed, within kShrinkSeconds
// (graphs near the evaluation budget take long to evaluate).
// Localizing: both graphs are evaluated at Wide precision (Note [Evaluation
// precisions]) on the shrunk input, every intermediate kept. A production
// value agrees with the reference when a reference value of the same type
// equals it to 9 significant digits (rounding noise at Wide precision is far
// below that; the smallest planted bugs, 1e-7 relative in f32 code, are
// above). The first production node, in topological order and in the cone of
// the refuted output, whose value agrees with no reference value, and from
// which no node downstream (in the cone) agrees with a reference value again
// (a non-constant one), is where production departs: another decomposition's
// own intermediate re-converges (a fused logsumexp the reference never
// materializes, whose log-softmax it does compute), a departure does not; its counterpart is the reference value of the same type,
// agreeing with no production value, closest to it (else the closest of its
// type, e.g. when production adds a term after the reference's last step).
// Heuristic by nature: the report says "first differing intermediate", not
// "the bug".
constexpr int kShrinkEvaluations = 48;
constexpr double kShrinkSeconds = 2.0;

// Where a node is, for reports: its first result's name, its op, its source line.
Site siteOf(const Node &n);

// Shrinks `r` in place (its inputs, and the difference confirmed on them);
// returns a phrase saying what shrinking did, "" when nothing smaller refutes.
std::string shrinkRefutation(const Graph &ref, const Graph &prod, Refutation &r, CounterexampleConfirmer &confirmer);

// Nullopt when the graphs cannot be evaluated or no departing value is found.
std::optional<IntermediateDifference> localizeDifference(const Graph &ref, const Graph &prod,
                                                         const std::vector<eval::EvalTensor> &inputs, size_t output);

}  // namespace torchtv
