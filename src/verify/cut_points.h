// Cut points: intermediate values of the two graphs proven equal and merged
// into one value number, so that later regions stop at them.
#pragma once

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "src/verify/prover.h"

namespace torchtv {

// Note [Cut points]
// The hardware equivalence checkers' answer to two circuits that agree
// everywhere but share no structure (SAT sweeping, fraiging: Kuehlmann et al.).
// An attention backward written by hand and the one autograd derives agree on
// the probabilities, on d(scores), on d(q), d(k), d(v), but the prover sees one
// residual region from the first difference to each output, through every
// matrix product after it, and gives up on its size.
// 1. Candidates by simulation. Both graphs are evaluated (src/eval, in long
//    double; integer inputs made non-negative, as they are mostly indices;
//    what needs an op without semantics is skipped) on one seeded random
//    input. A production value that no value number matches (not an output:
//    those are left to the prover proper, which reports their reasons) and a
//    reference value of the same type (dtype and shape: a cut pairs whole
//    tensors, never a broadcast of one) whose elements agree within 1e-12 of
//    the tensors' scale are a candidate pair; the reference value may be one
//    both graphs compute (a fused backward's recomputed probabilities equal
//    the forward's softmax). Tensors whose elements are all equal (zeros, a
//    constant) match too much and are no candidates. Evaluation only proposes:
//    it proves nothing.
// 2. Proof, in production's topological order. Each candidate is proven with
//    the region prover over a small region (at most 5,000 terms, 2 s per
//    solver query) whose frontier is the values both graphs share under the
//    current numbering; at level real it is widened up to matrix products,
//    then through them, then through index maps too (Frontier::ThroughProducts,
//    ThroughViews: a cut's region reads o = p @ v where the other side reads p
//    and v, or k where the other side reads a view of k^T), never to the inputs.
// 3. Merge. Only a proven pair is merged: the production value takes the
//    reference value's number (ValueNumbering::addGraph's `sameAs`), both
//    graphs are numbered again, and what hashes equal downstream now matches
//    structurally; later candidates are proven over the larger frontier. A
//    candidate that fails is dropped, nothing else.
// Levels: a cut proven at level real holds over the reals only, so every cut
// after it is real too (its proof may read it), and an output whose cone holds
// either side of a real cut is at most real (check.cpp adds both to the
// real-level values of Note [Levels of rewrites]). The real normal form's
// assumptions of each cut are the verdict's assumptions.
struct CutPoint {
  const Value *reference = nullptr;
  const Value *production = nullptr;
  Level level = Level::None;
};

struct CutPoints {
  std::vector<CutPoint> cuts;
  // Production value -> the reference value whose number it takes.
  std::unordered_map<const Value *, const Value *> sameAs;
  std::set<std::string> assumptions;
  size_t attempts = 0;  // candidate pairs sent to the prover
  size_t distinctProofs = 0, cacheHits = 0, solverQueries = 0;  // the prover's, as in CheckStats
};

// Given: two normalized graphs with the same interface, and the prover's limits.
// Execute: evaluate both, pair close unmatched values, prove the pairs in
//          topological order over the values proven so far (Note [Cut points]).
// Result: the proven pairs, empty when the graphs cannot be evaluated (symbolic
//         shapes, ops without semantics, past the evaluation budget).
CutPoints findCutPoints(const Graph &reference, const Graph &production, const ProverLimits &limits);

}  // namespace torchtv
