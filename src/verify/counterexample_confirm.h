// Counterexample confirmation: a candidate input is a counterexample only if
// running both compared graphs on it (torchtv's evaluator) shows a real difference.
//
// Note [Confirming counterexamples]
// The evaluator here is torchtv's own (src/eval, Note [Evaluation
// precisions]). A difference counts when (1) the outputs differ in the graphs'
// own dtypes (IEEE, any NaN equal to any NaN, -0.0 equal to 0.0), and (2) the
// difference is real, not rounding: evaluated in double and in long double
// without rounding to the dtypes, the difference is finite, of the same size
// in both and above a floor of the values' scale (Note [When values differ] in
// src/verify/value_difference.h, row 1, has the thresholds). Rounding
// noise shrinks by ~2^11 from double to long double, a real difference does not.
// The confirmer runs on the graphs the prover compares (normalized, fused ops
// expanded), during the search (refute.h) and the shrinking (shrink.h). LibTorch
// does not replace it: a confirmed counterexample is afterwards replayed on the
// ORIGINAL graphs (Note [Replaying counterexamples] in counterexample_replay.h,
// recordRefutation in counterexample.h), and its values are then LibTorch's.
// A non-finite output (NaN, +-inf against another class) has no size to
// compare; it counts only where a graph writes a non-finite constant (a -inf
// mask: Note [Extended reals at level real] in src/smt/extended_real.h), and
// then only when the pair of classes (finite, +inf, -inf, NaN) is the same in
// the dtypes, in double and in long double: a softmax row masked everywhere is
// NaN against 0 in all three, while an overflow of f32 is finite in double.
// Elsewhere a non-finite value from finite inputs is an overflow or a division
// by zero, which level real does not see. Such a difference becomes
// not_equivalent only when LibTorch replays it (recordRefutation): where
// LibTorch cannot run the op, what it gives on a row masked everywhere is
// torchtv's definition's choice (sdpa: NaN up to torch 2.4, 0 since), and the
// output is unknown, saying so, not proven over the reals either (proveStage).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "ir/graph.h"
#include "src/eval/concrete.h"
#include "src/verify/verdict.h"

namespace torchtv {

struct ConfirmedDifference {
  size_t output = 0;
  std::vector<long long> index;
  double referenceValue = 0, productionValue = 0;
  // Production raises on these inputs where the reference computes this output (Note [Reference
  // kernel domains] in src/verify/input_domains.h): productionValue is NaN, index empty.
  bool productionRaises = false;
};

class CounterexampleConfirmer {
public:
  virtual ~CounterexampleConfirmer() = default;
  // The first output (among `outputs`) and element where the graphs really differ on `inputs`.
  virtual std::optional<ConfirmedDifference> confirm(const Graph &reference, const Graph &production,
                                                     const std::vector<eval::EvalTensor> &inputs,
                                                     const std::vector<size_t> &outputs) = 0;
};

// The confirmer over torchtv's own evaluator. It keeps its last evaluation
// (the graphs by address, the inputs by value), so the graphs it is given must
// live and stay unchanged while it is in use.
std::unique_ptr<CounterexampleConfirmer> makeEvaluatorConfirmer();

}  // namespace torchtv
