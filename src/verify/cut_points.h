// Cut points: intermediate values of the two graphs proven equal and merged
// into one value number, so that later regions stop at them.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/graph.h"
#include "src/match/value_numbering.h"
#include "src/verify/prover.h"

namespace torchtv {

// Note [Cut points]
// The hardware equivalence checkers' answer to two circuits that agree
// everywhere but share no structure (SAT sweeping, fraiging: Kuehlmann et al.).
// An attention backward written by hand and the one autograd derives agree on
// the probabilities, on d(scores), on d(q), d(k), d(v), but the prover sees one
// residual region from the first difference to each output, through every
// matrix product after it, and gives up on its size.
// One pass over production in topological order: each node is numbered
// against the reference's numbers (ValueNumbering::numberNode); a value that
// no number matches (not an output: those are left to the prover proper, which
// reports their reasons) is offered candidates and, once one is proven, takes
// its number before any of its users is numbered. The frontier of every proof
// is what both graphs share so far, so the pass costs each value one search
// and no renumbering (it renumbered both graphs after each merge, quadratic in
// depth).
// 1. Candidates by structure, which needs no evaluation and so no dims small
//    enough to evaluate. The leaves of a value are the shared numbers at which
//    a walk back through its operands stops. Candidates are the reference
//    values of the same type (dtype and shape: a cut pairs whole tensors,
//    never a broadcast of one) reached forward from the production value's
//    leaves without crossing a shared value, or a leaf itself (production
//    adds a zero to it); the reference value may be one both graphs compute (a
//    fused backward's recomputed probabilities equal the forward's softmax).
//    They are ranked by the graphs' structure (Note [Cut candidates from
//    structure] in cut_points.cpp: post-dominator trees, reachability from
//    the leaves), and 3 are tried: each failed candidate costs a region and
//    its normal form, most of the search's time. A value interior to one
//    expression is not offered candidates at all (same Note).
// 2. Candidates by evaluation, when the dims allow it (the evaluation budget
//    of src/verify/refute.h): both graphs are evaluated (src/eval, in long
//    double; integer inputs made non-negative, as they are mostly indices) on
//    one seeded random input; structural candidates must then agree within
//    1e-12 of the tensors' scale, and up to 3 more reference values of the
//    type that agree, in the reference's order, are tried after them. Tensors
//    whose elements are all equal (zeros, a constant) match too much and are
//    no candidates. Evaluation only proposes: it proves nothing.
// 3. Proof. Each candidate is proven by the region prover over a small region
//    (at most 5,000 terms) whose frontier is the values shared so far; at
//    level real it is widened up to matrix products, then through them, then
//    through index maps too (Frontier::ThroughProducts, ThroughViews: a cut's
//    region reads o = p @ v where the other side reads p and v, or k where the
//    other side reads a view of k^T), each bounded (Note [Bounded widening]),
//    never to the inputs. The normal form alone tries every candidate; Z3 (2 s
//    a query) only those that an evaluation found to agree, since without one
//    most candidates are wrong and a failed query is the costliest answer, and
//    only until 4 of them failed (Note [Solver failures in the cut search]
//    in cut_points.cpp).
// 4. Merge. Only a proven pair is merged: the production value takes the
//    reference value's number, and what hashes equal downstream now matches
//    structurally. A candidate that fails is dropped, nothing else.
// Levels: a cut proven at level real holds over the reals only, so every cut
// after it is real too (its proof may read it), and an output whose cone holds
// either side of a real cut is at most real (check.cpp's matchStage adds both to the
// real-level values of Note [Levels of rewrites]); so is a cut proven at level rounded, and
// every cut after it (Note [Equivalence up to rounding]). The real normal form's
// assumptions of each cut are the verdict's assumptions.
struct CutPoint {
  const Value *reference = nullptr;
  const Value *production = nullptr;
  Level level = Level::None;
  // Level rounded: the sites its proof, or an earlier cut's, reads as exact (as a real cut makes
  // every later cut real, a rounded one makes every later cut rounded).
  std::vector<Rounding> roundings;
};

struct CutPoints {
  std::vector<CutPoint> cuts;
  // Both graphs numbered, each production value of a cut taking its
  // reference value's number (what the rest of the check matches against).
  ValueNumbering numbering;
  AssumptionCounts assumptions;  // of each cut's proof, counted per cut (summarizeRealAssumptions)
  size_t attempts = 0;  // candidate pairs sent to the prover
  size_t replayed = 0;  // values decided from the record of an earlier run (Note [Cut search record])
  size_t distinctProofs = 0, cacheHits = 0, solverQueries = 0;  // the prover's, as in CheckStats
  size_t persistentHits = 0, persistentMisses = 0;
};

// Given: two normalized graphs with the same interface, and the prover's limits.
// Execute: number production against the reference node by node, proving
//          candidates for each unmatched value as it is reached (Note [Cut points]).
// Result: the proven pairs and the numbering they give both graphs.
// `serve`: the outputs the cuts are for (empty: all); a value in no served
// output's cone is numbered but offered no candidates (check.cpp serves only
// the outputs the prover will see: most of a 64-layer pair's time went to
// cuts for outputs that running the code had refuted already).
// The prover's limits in the search (its region budget, query seconds), the solver still allowed.
ProverLimits cutSearchLimits(ProverLimits limits);

CutPoints findCutPoints(const Graph &reference, const Graph &production, const ProverLimits &limits,
                        const std::vector<bool> &serve = {});

}  // namespace torchtv
