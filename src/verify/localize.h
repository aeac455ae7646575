// Localizing a counterexample: the first intermediate values that differ,
// with their numbers (issue 19, item 3; issue 17, item 4).
#pragma once

#include <optional>

#include "ir/graph.h"
#include "src/verify/verdict.h"

namespace torchtv {

// Note [Localized counterexample]
// Both (normalized) graphs are evaluated on the counterexample's inputs in
// double precision (Note [Evaluation precisions]: the real-number semantics a
// refutation is confirmed against; in a tensor's own dtype an eps shift of
// 1e-6 can round away in the forward pass and show only at the outputs). The
// matched values (the match map's shared numbers) are proven equal, so the
// difference lies among the others. The first differing intermediate is the
// first production value, in topological order, in the cone of the refuted
// output, whose numbers the reference run computes nowhere (same type, equal up
// to double's noise, relative 1e-9; matched values count as computed) and
// from which nothing downstream computes what the reference does again. The
// second condition passes over another decomposition's own intermediates (a
// fused logsumexp the reference never materializes, whose log-softmax it does
// compute): a legitimate detour re-converges, a bug does not. Its
// reference side is the unmatched reference value of the same type in that
// output's cone that is nearest to it (largest elementwise difference
// smallest); the first element where the two differ is given with both
// numbers. For an eps bug this is the 1e-05-shifted value against the
// 1.1e-05-shifted one, not the outputs far below it.
// Nothing is claimed (nullopt) past the evaluation budget, when the graphs
// cannot be evaluated, when the counterexample's inputs are not the graphs'
// (shape-only pairs refuted at reduced shapes), or when no such pair exists.
// A value computed differently in the two graphs that differs in double only
// by more than 1e-9 relative (a catastrophic cancellation reordered) would be
// named although it is no bug; the reason a refutation gives stays the verdict.
std::optional<IntermediateDifference> localizeDifference(const Graph &ref, const Graph &prod, const Counterexample &c,
                                                         const MatchMap &match);

// Where a value came from: its node's first result, op and source line.
Site siteOf(const Node &n);

}  // namespace torchtv
