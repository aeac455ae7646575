// Counterexamples replayed through LibTorch on the original graphs.
//
// Note [Replaying counterexamples]
// A counterexample is found and confirmed on the graphs the prover compares
// (normalized, fused ops expanded), by torchtv's own evaluator. The evidence a
// person can rerun is PyTorch's: the same inputs are run through LibTorch
// (src/torch/replay.h) on both ORIGINAL graphs, every op by name through the
// dispatcher. If LibTorch shows a difference, the reported values are
// LibTorch's. If LibTorch shows none on this output, the counterexample did
// not replay and the output is `unknown`, saying so. Graphs LibTorch cannot
// run (custom ops, whose semantics only their FUSIONS definition gives) keep
// the evaluator's confirmation, and the note says so. When LibTorch itself
// cannot be loaded (Note [LibTorch module]) nothing replays and the output is
// `unknown`: not_equivalent needs the replay to have been possible.
//
// Note [Replay isolation]
// LibTorch can crash on a graph it is handed (1.13 overflows its stack on
// `ones_like {memory_format=4}`), and a crash must not take the verdict with
// it. Each replay therefore runs in a forked child (src/util/subprocess.h,
// runForked), as solver queries do (Note [Solver isolation]). The parent loads
// the LibTorch module first and the child inherits it, so no child pays for
// loading it (about a second); the parent itself never runs a LibTorch op to
// replay. The child sets LibTorch's intra-op threads to 1 before running
// anything: OpenMP (libgomp) state inherited through fork() can deadlock a
// child that starts a parallel region (a .pt import may have run ops in the
// parent), and replay inputs are small. Before each node the child writes
// which node it is at; the outcome comes back as text. A child killed by a
// signal, past kReplayTimeoutSeconds, or ending abnormally is Kind::Crashed,
// with the reason and node ("LibTorch crashed (SIGSEGV) while replaying
// aten::ones_like (result %y) of @reference"): the output stays unknown, as
// when LibTorch is unavailable. TORCHTV_REPLAY_FAULT=sigsegv makes the child
// raise SIGSEGV at the first node it replays (fault injection for the tests).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/eval/concrete.h"
#include "src/verify/counterexample_confirm.h"

namespace torchtv {

// Note [Replay outcomes fail closed]
// Each way a replay can end is a kind of its own, and the verdict table
// (Note [Verdict table]) maps each: only Replayed, ProductionRaised and
// OpMissing let the evaluator's confirmed difference stand as not_equivalent.
//   Replayed          LibTorch shows the difference: refuted, with LibTorch's values
//   DidNotReplay      LibTorch computes equal values on this output: unknown
//   OpMissing         a graph has an op LibTorch has no kernel for (a custom op, whose
//                     semantics only its FUSIONS definition gives), or a dtype, layout or
//                     argument LibTorch lacks: the evaluator's word stands, and the reason says so
//   ReferenceRaised   the reference's kernel raises on the input: the input is outside the
//                     reference's domain (Note [Verdicts] in README: production may do
//                     anything there), so it refutes nothing: unknown from this input
//   ProductionRaised  the reference runs, production's kernel raises: production fails on an
//                     input the reference accepts, a refutation
//   Failed            LibTorch ran but torchtv could not read its result (a result whose type
//                     is not the IR's, a dtype torchtv lacks): the graph is not what runs, unknown
//   Unavailable       LibTorch could not be loaded: unknown
//   Crashed           the replay child crashed, hung or died (Note [Replay isolation]): unknown
// The reference is replayed first: when it raises, production is not asked.
// Crashed stays last (readChild checks the kind it reads against it).
struct ReplayOutcome {
  enum class Kind { Replayed, DidNotReplay, OpMissing, ReferenceRaised, ProductionRaised, Failed, Unavailable, Crashed };
  Kind kind = Kind::Failed;
  std::vector<long long> index;  // Replayed: where the outputs differ
  double referenceValue = 0, productionValue = 0;
  std::string detail;  // every kind but Replayed: why, or what LibTorch showed
};

// Note [Replay isolation]: a replay child taking longer is killed.
constexpr double kReplayTimeoutSeconds = 120;

ReplayOutcome replayOnOriginals(const Graph &reference, const Graph &production,
                                const std::vector<eval::EvalTensor> &inputs, size_t output,
                                const std::vector<long long> &preferredIndex);

// Both original graphs run through LibTorch on `inputs`, isolated as above
// (for --self-check, Note [Self-check]): every output's values, or why not
// (unavailable, not replayable, crashed) in `why`.
struct ReplayedOutputs {
  std::vector<std::vector<double>> reference, production;
  std::string why;  // empty when both ran
};
ReplayedOutputs replayBoth(const Graph &reference, const Graph &production,
                           const std::vector<eval::EvalTensor> &inputs);

// Every value both original graphs compute on `inputs` (inputs included), by
// value name, replayed as above: what localization compares where torchtv's
// evaluator cannot evaluate the graphs (Note [Counterexamples through
// LibTorch]); `why` when they could not be replayed.
struct ReplayedValues {
  std::map<std::string, eval::EvalTensor> reference, production;
  std::string why;
};
ReplayedValues replayValues(const Graph &reference, const Graph &production,
                            const std::vector<eval::EvalTensor> &inputs);

// Note [Counterexamples through LibTorch]
// Where torchtv's evaluator lacks an op of the graphs (aten::mish_backward; any
// op it will never have), an output that the capture's runs refute (Note
// [Cross-checks]) would keep the runs' counterexample: their inputs, neither
// shrunk nor localized. LibTorch's kernels take the evaluator's place: a
// random input is a counterexample when replaying both original graphs
// differs on the output beyond rounding, by differ::replayTolerance of the
// output's scale (the largest magnitude of the reference's output; absolute
// below a scale of 1; Note [When values differ] in src/verify/value_difference.h,
// row 3), any difference in integers; shrinking (Note [Shrinking counterexamples]) asks
// the same of each candidate; localization (Note [Localized
// counterexamples]) compares the values of both replays, to
// kReplayDigits significant digits in float32 and wider, 3 in 16-bit floats.
// Each replay is a forked child (Note [Replay isolation]). This confirmer
// never decides a verdict: it refines the counterexample of an output the runs
// already refuted (Note [Refuting at reduced shapes]), whose verdict stands
// whatever it finds.
constexpr int kReplayDigits = 5;
std::unique_ptr<CounterexampleConfirmer> makeReplayConfirmer(const Graph &reference, const Graph &production);

}  // namespace torchtv
