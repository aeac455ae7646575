// Why an output (or a check) has its verdict, as data: the row of the verdict
// table (Note [Verdict table] in src/verify/verdict_table.h) that last decided
// it. The reason's text (OutputResult::reason) is rendered from the code and
// the stage's fields; code that needs to know an output's state reads the code,
// never the text. `--format json` writes it as `reason_code` (reasonCodeName).
#pragma once

#include <optional>
#include <string_view>

namespace torchtv {

enum class ReasonCode {
  None,                  // no output decided yet (errors, a check with no result)
  // Settled by matching or by the prover: a proof.
  StructurallyEqual,     // equal as written, or after bitwise normalization
  StructurallyEqualReal, // equal after normalization through rewrites that hold over the reals
  ProvenBitwise,         // Z3 over IEEE floats
  ProvenReal,            // the real normal form or Z3 over the reals
  ProvenRounded,         // equal over the reals up to rounding (Note [Equivalence up to rounding])
  FromResultCache,       // an equivalent output read back from the result cache (a stored proof)
  // Types, refutations and their replay (Note [Replay outcomes fail closed]).
  TypesDiffer,
  Refuted,               // confirmed by the evaluator and replayed through LibTorch
  RefutedByEvaluator,    // confirmed by the evaluator; LibTorch lacks an op (or dtype, argument) of the graphs
  ProductionRaises,      // production's kernel raises on an input the reference accepts
  ReferenceRaises,       // the reference's kernel raises: the input is outside its domain
  ReplayCrashed,         // the replay child crashed, hung or died
  ReplayUnavailable,     // LibTorch could not be loaded
  ReplayFailed,          // LibTorch ran, torchtv could not read its result (a type not the IR's)
  DidNotReplay,          // LibTorch computes equal values on the counterexample
  // Not decided.
  NotProven,             // the prover gave up (no semantics, limits, a model over abstracted values)
  TimedOut,              // the whole check ran out of time (the CLI's watchdog, `torchtv ci`)
  ReducedOnlyUnchecked,  // Note [Refuted before the shape-only capture]
  // Equivalent below the level --require asks for (rounded < real < bitwise).
  RealButBitwiseRequired,
  RoundedButRealRequired,
  RoundedButBitwiseRequired,
  // Runs of the code or of the graphs (Note [Cross-checks]).
  RefutedByRunning,      // the user's functions differ beyond rounding when run
  RunsContradictProof,   // ... on an output proven equivalent (an internal inconsistency; not_equivalent)
  InternalInconsistency, // graphs proven equal that run apart (--self-check): unknown
  RunsDifferInBits,      // a bitwise proof whose runs differ in bits: real
  // A graph refutation held against the code (Note [A refutation reproduces on the code]).
  CaptureIsNotTheCode,   // the code does not show the difference the graphs show: unknown
  CodeNotRun,            // the code could not be run on the counterexample: unknown
  // Overall (summarize): the worst output decides.
  AllOutputsEquivalent,
  SomeOutputsDiffer,
  SomeOutputsUnknown,
  Error,
};

std::string_view reasonCodeName(ReasonCode c);  // "proven_real", ... (verdict.cpp)
std::optional<ReasonCode> reasonCodeNamed(std::string_view name);  // its inverse

}  // namespace torchtv
