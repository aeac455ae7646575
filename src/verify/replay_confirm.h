// Counterexamples replayed through LibTorch on the original graphs.
//
// Note [Replaying counterexamples]
// A counterexample is found and confirmed on the graphs the prover compares
// (normalized, fused ops expanded), by torchtv's own evaluator. The evidence a
// person can rerun is PyTorch's: the same inputs are run through LibTorch
// (src/replay) on both ORIGINAL graphs, every op by name through the
// dispatcher. If LibTorch shows a difference, the reported values are
// LibTorch's. If LibTorch shows none on this output, the counterexample did
// not replay and the output is `unknown`, saying so. Graphs LibTorch cannot
// run (custom ops, whose semantics only their FUSIONS definition gives) keep
// the evaluator's confirmation, and the note says so. When LibTorch itself
// cannot be loaded (Note [LibTorch module]) nothing replays and the output is
// `unknown`: not_equivalent needs the replay to have been possible.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/eval/concrete.h"

namespace torchtv {

struct ReplayOutcome {
  enum class Kind { Replayed, DidNotReplay, NotReplayable, Unavailable };
  Kind kind = Kind::NotReplayable;
  std::vector<long long> index;  // Replayed: where the outputs differ
  double referenceValue = 0, productionValue = 0;
  std::string detail;  // NotReplayable, Unavailable: why; DidNotReplay: what LibTorch showed
};

ReplayOutcome replayOnOriginals(const Graph &reference, const Graph &production,
                                const std::vector<eval::EvalTensor> &inputs, size_t output,
                                const std::vector<long long> &preferredIndex);

}  // namespace torchtv
