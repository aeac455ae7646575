// The verdict table: the one place where evidence about an output becomes its
// verdict, level and reason code. Stages report what they found (Evidence);
// rule() decides.
#pragma once

#include <string_view>
#include <vector>

#include "src/verify/counterexample_replay.h"
#include "src/verify/verdict.h"

namespace torchtv {

// What a stage found about one output.
enum class Evidence {
  // Proofs (matching, the prover, a stored decision).
  EqualAsWritten,           // the graphs as written compute it alike (bitwise)
  EqualAfterNormalization,  // equal after normalization, at the given level
  Proven,                   // the prover (or --monolithic) proved it at the given level
  StoredProof,              // the result cache's stored proof, at its level
  ProvenRounded,            // proven over the reals up to roundings (Note [Equivalence up to rounding])
  RealOnTheWay,             // a real-level rewrite or cut point lies on its way (Note [Levels of rewrites])
  NotProven,                // the prover gave up; the reason says why
  DiffersByRoundingOnly,    // a random input's difference the normal form proves a rounding
  // Types.
  TypesDiffer,
  // A counterexample confirmed by torchtv's evaluator, then replayed through LibTorch
  // (Note [Replay outcomes fail closed]).
  RefutedReplayed,
  RefutedOpMissing,
  ProductionRaises,
  ReferenceRaises,
  ReplayCrashed,
  ReplayUnavailable,
  ReplayFailed,
  DidNotReplay,
  // Runs (Note [Cross-checks]).
  CodeRunsDifferBeyondRounding,     // the user's functions, run eagerly at the captured shapes
  ReducedRunsDifferBeyondRounding,  // the same at a shape-only pair's small_inputs() shapes
  GraphRunsDifferBeyondRounding,    // both graphs run (--self-check)
  RunsDifferInBits,                 // at the captured shapes
  ReducedRunsDifferInBits,          // at other shapes than the captured ones
  // Limits and requirements.
  TimedOut,
  ReducedOnlyUnchecked,
  LevelRequired,  // --require: the level given to rule() is the one required
  // A graph refutation run through the user's code (Note [A refutation reproduces on the code]).
  RefutationNotReproducedEagerly,  // the code does not show the difference: the capture is not the code
  ReferenceRaisesOnCode,           // the user's reference raises on the counterexample: outside its domain
  CodeNotRun,                      // the code could not be run on it (or did not answer for the output)
};

struct Ruling {
  Verdict verdict = Verdict::Unknown;
  Level level = Level::None;
  ReasonCode code = ReasonCode::None;
  bool operator==(const Ruling &o) const { return verdict == o.verdict && level == o.level && code == o.code; }
};

// Note [Verdict table]: what `e` makes of an output that stood at `before`.
// `level` is the level of a proof (EqualAfterNormalization, Proven, StoredProof) or the level
// required (LevelRequired), else unused.
Ruling rule(const Ruling &before, Evidence e, Level level = Level::None);

// rule() applied to `out`'s verdict, level and code; true when any of them changed. The caller
// writes the reason's text (the strings are in verdict.cpp).
bool applyEvidence(OutputResult &out, Evidence e, Level level = Level::None);

// The same for a check as a whole (a check with no outputs to rule: the CLI's watchdog, `torchtv
// ci`'s timeout, --require on the pair's verdict).
bool applyEvidence(CheckResult &r, Evidence e, Level level = Level::None);

// The evidence a replay outcome is (Note [Replay outcomes fail closed]).
Evidence evidenceOfReplay(ReplayOutcome::Kind kind);

// Whether `e` makes an undecided output not_equivalent on its own.
bool refutes(Evidence e);

// The text a replay adds to an output's reason (verdict.cpp, Note [Verdict strings]): for a
// refuting replay, what confirmed it ("replayed through LibTorch on the original graphs"); for
// another, why the counterexample is not reported.
std::string replayRefuting(Evidence e, const std::string &detail);
std::string replayNotRefuting(Evidence e, const std::string &detail);

// Whether `code` is a refutation found on the graphs (confirmed by the evaluator and replayed),
// the refutations a pair file's code runs hold against the code (src/verify/code_runs.h).
bool refutedOnGraphs(ReasonCode code);

// For the test that walks the table.
const std::vector<Evidence> &everyEvidence();
std::string_view evidenceName(Evidence e);
bool isProof(Evidence e);  // the only evidence that may make an output equivalent
bool isRun(Evidence e);    // runs of the code or of the graphs: they never strengthen a verdict

}  // namespace torchtv
