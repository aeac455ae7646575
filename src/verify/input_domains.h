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
//
// Masks are inputs too, and the bugs around them sit in rows that random
// values never make: a row with every key masked (1 in 65536 random bool rows
// of 16), or an additive mask row all large negative. A mask distribution
// draws every bool input as rows all true, all false, one true and random,
// and every float input that is an additive mask (added into the input of a
// softmax, logsumexp or amax, the `masks` column, or attention's float
// attn_mask) as 0 or -1e9 (f16: its finfo.min, -65504), in rows the same way.
// Not -inf: a difference that needs an infinite (or NaN) input is one that
// level real does not see (Note [Masked -inf]; goldens
// edge/inf_times_zero_where, edge/logsumexp_vs_unguarded_shift), and the
// search runs before the prover, so an input outside the reals could turn a
// pair equal over the reals into not_equivalent (the confirmer drops most
// such differences, non-finite in double, not all: isnan, where). Not f32's
// finfo.min either: near it a value absorbs anything below about 1e-19 of it
// in double and long double alike (x + 0.7 == x in both), so the confirmer
// (Note [Confirming counterexamples]) cannot tell rounding from a difference
// there; softmax(s + m) against a formula that cancels m first would come
// out refuted on a fully masked row though equal over the reals. -1e9 masks
// alike in every dtype but f16 (exp(-1e9) is 0 even in long double) and
// double resolves it. For the same reasons the edge distribution (refute.h)
// draws only finite values: +-0, subnormals, ties, and values near the
// largest finite only in f16 (edgeValue in refute.cpp: log_softmax(x) against
// x - logsumexp(x) came out refuted on a row near f32's largest).
struct InputDomain {
  std::optional<int64_t> indexBound;  // indices into a dim of this size
  bool positive = false;              // read by an op real-valued only for positive values
  bool additiveMask = false;          // a float added into a softmax's input, or attention's attn_mask
};

// One domain per graph input, in order.
std::vector<InputDomain> inputDomains(const Graph &g);
// Whether any input has a domain the fixed distributions do not draw from.
bool anyDomain(const std::vector<InputDomain> &domains);
// Whether any input is a mask: a bool, or an additive mask.
bool anyMask(const Graph &g, const std::vector<InputDomain> &domains);

}  // namespace torchtv
