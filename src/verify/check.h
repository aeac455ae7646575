// Decides whether two graphs compute the same outputs (the engine's entry point).
#pragma once

#include <functional>
#include <mutex>
#include <optional>

#include "ir/capture_evidence.h"
#include "ir/graph.h"
#include "src/smt/query.h"
#include "src/verify/verdict.h"

namespace torchtv {
namespace cache {
class ProofCache;
}

class FusionLibrary;

enum class Normalization { On, Off };
enum class SelfCheckMode { Off, On };
// Monolithic: the benchmark baseline, no structural matching (Note [Monolithic baseline]).
enum class Strategy { Structural, Monolithic };
// On: intermediate values proven equal are merged before outputs are decided
// (Note [Cut points]); Off: only for measuring what they bring.
enum class CutPointSearch { On, Off };

// Note [Outputs decided before the time limit]
// The CLI's watchdog (Note [Watchdog] in src/cli/watchdog.h) ends a check still running past
// --timeout. So that it prints what was decided by then, the engine publishes here, after
// matching and after each output it proves, the result as it would stand if nothing more were
// decided: each output proven so far at the level the later stages give it (rewrites and cut points
// on the way, rounded constants, the capture's runs, --require), every other output unknown (timed
// out). A refutation is among the others: it is reported only once it reproduces on the code
// (applyCodeRuns), which runs at the end. Written by the engine's thread, read by the watchdog's.
class DecidedSoFar {
public:
  void publish(CheckResult r) {
    std::lock_guard<std::mutex> lock(mutex_);
    latest_ = std::move(r);
  }
  std::optional<CheckResult> latest() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return latest_;
  }

private:
  mutable std::mutex mutex_;
  std::optional<CheckResult> latest_;
};

// The engine's options, one struct: the CLI fills it (cli::EngineOptions holds
// one), and the prover's limits are derived from it (proverLimitsOf in
// check.cpp). Every default is named here or in src/smt/query.h.
struct CheckOptions {
  RequiredLevel require = RequiredLevel::Rounded;
  // Both graphs are copied and normalized (src/normalize) before matching.
  Normalization normalization = Normalization::On;
  // Definitions to expand; nullptr: the bundled fusions/ only.
  const FusionLibrary *fusions = nullptr;
  double timeoutSeconds = 0;  // 0: no global limit
  unsigned rlimit = smt::kDefaultRlimit;  // per solver query (Note [Solver limits])
  unsigned solverMemoryMB = smt::kDefaultSolverMemoryMB;  // per solver query, 0: none (Note [Solver memory cap])
  SelfCheckMode selfCheck = SelfCheckMode::Off;
  Strategy strategy = Strategy::Structural;
  CutPointSearch cutPoints = CutPointSearch::On;
  // Note [Declared input domains] in src/verify/input_domains.h: `--assume`, a pair file's ASSUME,
  // as written ("x1 in [0, 5)"); read by checkGraphs (a text it cannot read is an InputError).
  std::vector<std::string> declaredDomains;
  // What the capture learnt by running the user's functions (verify; Note [Cross-checks]);
  // null: a graph file, nothing ran.
  const CaptureEvidence *capture = nullptr;
  // A shape-only pair's graphs captured again at its small_inputs() shapes, only to
  // refine the counterexample its runs there found (Note [Refuting at reduced
  // shapes]); null: none.
  const Graph *reducedReference = nullptr, *reducedProduction = nullptr;
  // Called as the check moves on (the CLI's progress line on a terminal): the
  // stage, and how many of the outputs are decided so far. Null: none.
  std::function<void(const char *stage, size_t decided, size_t total)> progress;
  // Outcomes kept across runs (Note [Proof cache]); null: none.
  cache::ProofCache *proofCache = nullptr;
  // Runs the user's two functions on a refutation's inputs (a pair file's, `verify`): given the
  // request's JSON text, returns the reply's (Note [A refutation reproduces on the code] in
  // src/verify/code_runs.h). Empty: graph files, there is no code to run.
  std::function<std::string(const std::string &request)> runCode;
  // Note [Outputs decided before the time limit]; null: nothing is published.
  DecidedSoFar *decidedSoFar = nullptr;
};

// Compares reference and production output by output. Throws InputError when
// the two graphs cannot be compared at all (different inputs or output counts).
CheckResult checkGraphs(const Graph &reference, const Graph &production, const CheckOptions &options);

}  // namespace torchtv
