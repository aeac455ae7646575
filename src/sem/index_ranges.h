// Terms read under the assumption that index tensors hold in-range indices
// (Note [Index inputs in range] in src/verify/input_domains.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "src/sem/index_range.h"
#include "src/sem/term.h"

namespace torchtv::sem {

// Note [Terms with indices in range]
// Z3 is given the ranges as constraints on the reads of the bounded tensors,
// but a query stays as hard as its terms: a cross-entropy's mean divides by
// the count of targets other than ignore_index, a data-dependent read ends in
// raise(v), and nonlinear real arithmetic over those selects timed out where
// the in-range terms are easy. So the terms are first rewritten with what the
// ranges imply, each step an identity for every in-range value:
//   - v == c and v != c, for v an element of a bounded tensor (through
//     integer conversions that keep its value) and c a constant outside
//     [0, bound): false and true;
//   - a chain select(v == c_0, a_0, select(v == c_1, a_1, ... e)) whose
//     constants cover [0, bound): e is never reached, so the innermost select
//     is its a_n (a dispatch's raise(v): Note [Data-dependent indices]);
//   - v < c, v <= c, v > c and v >= c for a constant c that every v in
//     [0, bound) meets alike: that constant (the range test of a one-hot or a
//     read at a data-dependent position, Note [Positions as values in terms]
//     in src/sem/term.h, whose raise(v) it then drops);
//   - a one-hot row's sum, sum_j select(v == value(j), a, 0) with bound at
//     most the extent and v, a independent of j: a (exactly one summand is
//     a), over the reals, and in IEEE for a pick or an integer sum (Note
//     [Reads at data-dependent positions] in src/sem/index_ops.cpp): the
//     backward of a log-softmax sums the one-hot gradient of nll_loss;
//   - what those make constant is folded: and/or/not of a constant, and
//     a sum of a constant over a concrete extent, such as the count of
//     targets kept, which Z3 otherwise divides by as by an unknown (nonlinear
//     arithmetic): a float sum only for `reals` (over the reals no sum
//     rounds), an integer one always (exact modulo its width, in any order;
//     torch's decomposition counts the targets kept as an i64 sum).
// A range with points outside [0, bound) that the reference also accepts
// (nll_loss's ignore_index: Note [Reference kernel domains] in
// src/verify/input_domains.h) keeps each step an identity on them too: v == p
// is not folded, a chain must test p as well to drop its last arm, an order
// test must answer alike at p, and a one-hot row's sum is select(v == p, 0, a)
// for a p outside the sum's extent (no summand is a there).
// `bounds`: by slot, the tensors whose every element lies in its range.
TermPtr assumeIndexRanges(TermContext &tc, TermPtr t, const IndexRanges &bounds, bool reals);

// Note [Sums compared by their summands]
// Over the reals, c * sum_k A(k) and c * sum_k B(k) are equal when A(k) = B(k)
// for every k. Z3 given the sums unrolled must instead show that the whole
// sums agree: with data-dependent selects in each summand (a row's target)
// it case-splits on every combination of rows (8 classes, 4 rows: 4096
// cases), which timed out where one row's 8 cases take a moment. So a query
// over such terms is first asked of the summands at a free k. Both terms are
// read as a constant factor (through neg, and mul or div by a constant) of a
// sum over the same extent; nullopt when they are not. Failing pointwise
// proves nothing (the sums may still agree); the caller then asks the whole.
std::optional<std::pair<TermPtr, TermPtr>> summandsToCompare(TermContext &tc, TermPtr a, TermPtr b);

}  // namespace torchtv::sem
