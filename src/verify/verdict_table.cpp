#include "src/verify/verdict_table.h"

// Note [Verdict table]
// Every verdict, level and reason code of an output is set here, by rule(), from
// the evidence a stage reports; no stage sets a verdict itself. Rows, as
// "evidence: before -> after" (U unknown, E equivalent at a level, N
// not_equivalent; "-" keeps the output as it was):
//
//   proofs (only these make E)
//   EqualAsWritten           U -> E bitwise (structurally_equal)
//   EqualAfterNormalization  U, E -> E at its level (structurally_equal, or structurally_equal_real)
//   Proven                   U, E -> E at its level (proven_bitwise / proven_real)
//   StoredProof              U, E -> E at its level (from_result_cache)
//   ProvenRounded            U, E -> E rounded (proven_rounded): the weakest level, equal over the
//                            reals up to the roundings listed (Note [Equivalence up to rounding])
//   any proof                N -> U (internal_inconsistency): a proof and a counterexample of one
//                            output cannot both hold, and nothing says which is wrong
//   RealOnTheWay             E bitwise -> E real (structurally_equal_real or proven_real); else -
//   NotProven                U -> U (not_proven, unless a reason is there already); else -
//   DiffersByRoundingOnly    -: never refute from rounding (Note [Equivalence up to rounding]); a
//                            random input's difference that the normal form proves a rounding (or
//                            that reads a rounded cut) is left to the prover, which proves it rounded
//   types
//   TypesDiffer              any -> N (types_differ): every input shows it
//   refutations (confirmed by the evaluator, then replayed: Note [Replay outcomes fail closed])
//   RefutedReplayed          U, N -> N (refuted); E -> U (internal_inconsistency); N by running -
//                            (the same for the next two rows)
//   RefutedOpMissing         U, N -> N (refuted_by_evaluator); E -> U (internal_inconsistency)
//   ProductionRaises         U, N -> N (production_raises); E -> U (internal_inconsistency)
//   ReferenceRaises          U -> U (reference_raises); else -: the input is outside the
//                            reference's domain, where production may do anything
//   ReplayCrashed            U -> U (replay_crashed); else -
//   ReplayUnavailable        U -> U (replay_unavailable); else -
//   ReplayFailed             U -> U (replay_failed); else -
//   DidNotReplay             U -> U (did_not_replay); else -
//   runs (never strengthen: they only refute or lower)
//   CodeRunsDifferBeyondRounding   U, N on the graphs -> N (refuted_by_running); E -> N
//                                  (runs_contradict_proof); other N -: two runs of the user's code on
//                                  one input disagree, a counterexample on the code itself, which a
//                                  later refutation on the graphs (refutations row) keeps and no
//                                  code run of the graphs' counterexample takes back
//   ReducedRunsDifferBeyondRounding  the same: an input at other shapes on which the code differs
//   GraphRunsDifferBeyondRounding  E -> U (internal_inconsistency); else -
//   RunsDifferInBits               E bitwise -> E real (runs_differ_in_bits); else -
//   ReducedRunsDifferInBits        - (bits at other shapes say nothing about the captured ones)
//   limits and requirements
//   TimedOut                 U -> U (timed_out); else -
//   ReducedOnlyUnchecked     U -> U (reduced_only_unchecked); else -
//   LevelRequired            E below the level required (rounded < real < bitwise) -> U
//                            (real_but_bitwise_required, rounded_but_real_required,
//                            rounded_but_bitwise_required); else -
//   a pair file's graph refutations run through the user's code (Note [A refutation reproduces on
//   the code] in src/verify/code_runs.h); the code can only take back refutations found on the
//   graphs (refuted, refuted_by_evaluator, production_raises), never refuted_by_running:
//   RefutationNotReproducedEagerly  N on the graphs -> U (capture_is_not_the_code); else -
//   ReferenceRaisesOnCode           N on the graphs -> U (reference_raises): the user's reference
//                                   raises on the input, outside its domain; else -
//   CodeNotRun                      N on the graphs -> U (code_not_run): not confirmed; else -
//   (an output the code shows keeps its row: not_equivalent, its reason says how the code shows it)
//
// The invariants (tests/unit/test_verdict_table.cpp walks every row from every state):
// - nothing but a proof makes E;
// - runs never strengthen: after a run an output is E only if it was, at no stronger level;
// - a reference that raises never makes N, nor does a timeout or a crash (nor E);
// - code runs that do not reproduce a refutation never make N (nor E);
// - N never becomes E;
// - the level is None exactly when the verdict is not E.
// The overall verdict (summarize in verdict.cpp) is the worst output's: E < U < N < error,
// equivalent outputs at the weakest level of any.

namespace torchtv {

namespace {

Ruling make(Verdict v, Level l, ReasonCode c) { return Ruling{v, l, c}; }

Ruling proof(const Ruling &before, Level level, ReasonCode code) {
  if (before.verdict == Verdict::NotEquivalent) return make(Verdict::Unknown, Level::None, ReasonCode::InternalInconsistency);
  if (before.verdict == Verdict::Error) return before;
  return make(Verdict::Equivalent, level == Level::None ? Level::Real : level, code);
}

Ruling refutation(const Ruling &before, ReasonCode code) {
  if (before.verdict == Verdict::Equivalent) return make(Verdict::Unknown, Level::None, ReasonCode::InternalInconsistency);
  // The code's own runs refuted it already: that needs no reproduction, and a refutation on the
  // graphs (at another input, perhaps) must not make it one that does.
  if (before.verdict == Verdict::Error || before.code == ReasonCode::RefutedByRunning) return before;
  return make(Verdict::NotEquivalent, Level::None, code);
}

// Evidence that decides nothing: an undecided output says why it stays so. The prover giving up
// (not_proven) does not hide a more telling reason found first (a reference that raises on the
// counterexample the random search found, before the prover ran).
Ruling undecided(const Ruling &before, ReasonCode code) {
  if (before.verdict != Verdict::Unknown) return before;
  if (code == ReasonCode::NotProven && before.code != ReasonCode::None) return before;
  return make(Verdict::Unknown, Level::None, code);
}

// A refutation found on the graphs that the code does not confirm: unknown, saying why. Nothing
// else changes (a refutation by running the code, types that differ, a proof).
Ruling takenBack(const Ruling &before, ReasonCode code) {
  if (before.verdict != Verdict::NotEquivalent || !refutedOnGraphs(before.code)) return before;
  return make(Verdict::Unknown, Level::None, code);
}

}  // namespace

bool refutedOnGraphs(ReasonCode code) {
  return code == ReasonCode::Refuted || code == ReasonCode::RefutedByEvaluator || code == ReasonCode::ProductionRaises;
}

Ruling rule(const Ruling &before, Evidence e, Level level) {
  const bool equivalent = before.verdict == Verdict::Equivalent;
  switch (e) {
  case Evidence::EqualAsWritten: return proof(before, Level::Bitwise, ReasonCode::StructurallyEqual);
  case Evidence::EqualAfterNormalization:
    return proof(before, level,
                 level == Level::Bitwise ? ReasonCode::StructurallyEqual : ReasonCode::StructurallyEqualReal);
  case Evidence::Proven:
    return proof(before, level,
                 level == Level::Bitwise   ? ReasonCode::ProvenBitwise
                 : level == Level::Rounded ? ReasonCode::ProvenRounded
                                           : ReasonCode::ProvenReal);
  case Evidence::StoredProof: return proof(before, level, ReasonCode::FromResultCache);
  case Evidence::ProvenRounded: return proof(before, Level::Rounded, ReasonCode::ProvenRounded);
  case Evidence::RealOnTheWay:
    if (!equivalent || before.level != Level::Bitwise) return before;
    return make(Verdict::Equivalent, Level::Real,
                before.code == ReasonCode::StructurallyEqual ? ReasonCode::StructurallyEqualReal
                                                              : ReasonCode::ProvenReal);
  case Evidence::NotProven: return undecided(before, ReasonCode::NotProven);
  case Evidence::DiffersByRoundingOnly: return before;
  case Evidence::TypesDiffer:
    if (before.verdict == Verdict::Error) return before;
    return make(Verdict::NotEquivalent, Level::None, ReasonCode::TypesDiffer);
  case Evidence::RefutedReplayed: return refutation(before, ReasonCode::Refuted);
  case Evidence::RefutedOpMissing: return refutation(before, ReasonCode::RefutedByEvaluator);
  case Evidence::ProductionRaises: return refutation(before, ReasonCode::ProductionRaises);
  case Evidence::ReferenceRaises: return undecided(before, ReasonCode::ReferenceRaises);
  case Evidence::ReplayCrashed: return undecided(before, ReasonCode::ReplayCrashed);
  case Evidence::ReplayUnavailable: return undecided(before, ReasonCode::ReplayUnavailable);
  case Evidence::ReplayFailed: return undecided(before, ReasonCode::ReplayFailed);
  case Evidence::DidNotReplay: return undecided(before, ReasonCode::DidNotReplay);
  case Evidence::CodeRunsDifferBeyondRounding:
  case Evidence::ReducedRunsDifferBeyondRounding:
    if (before.verdict == Verdict::Unknown || (before.verdict == Verdict::NotEquivalent && refutedOnGraphs(before.code)))
      return make(Verdict::NotEquivalent, Level::None, ReasonCode::RefutedByRunning);
    if (equivalent) return make(Verdict::NotEquivalent, Level::None, ReasonCode::RunsContradictProof);
    return before;
  case Evidence::GraphRunsDifferBeyondRounding:
    return equivalent ? make(Verdict::Unknown, Level::None, ReasonCode::InternalInconsistency) : before;
  case Evidence::RunsDifferInBits:
    return equivalent && before.level == Level::Bitwise
               ? make(Verdict::Equivalent, Level::Real, ReasonCode::RunsDifferInBits)
               : before;
  case Evidence::ReducedRunsDifferInBits: return before;
  case Evidence::TimedOut: return undecided(before, ReasonCode::TimedOut);
  case Evidence::ReducedOnlyUnchecked: return undecided(before, ReasonCode::ReducedOnlyUnchecked);
  case Evidence::RefutationNotReproducedEagerly: return takenBack(before, ReasonCode::CaptureIsNotTheCode);
  case Evidence::ReferenceRaisesOnCode: return takenBack(before, ReasonCode::ReferenceRaises);
  case Evidence::CodeNotRun: return takenBack(before, ReasonCode::CodeNotRun);
  case Evidence::LevelRequired:
    // Levels weaken as the enum goes: Bitwise, Real, Rounded.
    if (!equivalent || level == Level::None || static_cast<int>(before.level) <= static_cast<int>(level))
      return before;
    return make(Verdict::Unknown, Level::None,
                before.level == Level::Real  ? ReasonCode::RealButBitwiseRequired
                : level == Level::Real       ? ReasonCode::RoundedButRealRequired
                                             : ReasonCode::RoundedButBitwiseRequired);
  }
  return undecided(before, ReasonCode::None);
}

namespace {
// An OutputResult or a CheckResult: both carry a verdict, a level and a code.
template <class Result> bool applyTo(Result &r, Evidence e, Level level) {
  const Ruling before{r.verdict, r.level, r.code};
  const Ruling after = rule(before, e, level);
  r.verdict = after.verdict;
  r.level = after.level;
  r.code = after.code;
  return !(after == before);
}
}  // namespace

bool applyEvidence(OutputResult &out, Evidence e, Level level) { return applyTo(out, e, level); }
bool applyEvidence(CheckResult &r, Evidence e, Level level) { return applyTo(r, e, level); }

Evidence evidenceOfReplay(ReplayOutcome::Kind kind) {
  switch (kind) {
  case ReplayOutcome::Kind::Replayed: return Evidence::RefutedReplayed;
  case ReplayOutcome::Kind::DidNotReplay: return Evidence::DidNotReplay;
  case ReplayOutcome::Kind::OpMissing: return Evidence::RefutedOpMissing;
  case ReplayOutcome::Kind::ReferenceRaised: return Evidence::ReferenceRaises;
  case ReplayOutcome::Kind::ProductionRaised: return Evidence::ProductionRaises;
  case ReplayOutcome::Kind::Failed: return Evidence::ReplayFailed;
  case ReplayOutcome::Kind::Unavailable: return Evidence::ReplayUnavailable;
  case ReplayOutcome::Kind::Crashed: return Evidence::ReplayCrashed;
  }
  return Evidence::ReplayFailed;
}

const std::vector<Evidence> &everyEvidence() {
  static const std::vector<Evidence> all = {
      Evidence::EqualAsWritten, Evidence::EqualAfterNormalization, Evidence::Proven, Evidence::StoredProof,
      Evidence::ProvenRounded, Evidence::RealOnTheWay, Evidence::NotProven, Evidence::DiffersByRoundingOnly, Evidence::TypesDiffer, Evidence::RefutedReplayed,
      Evidence::RefutedOpMissing, Evidence::ProductionRaises, Evidence::ReferenceRaises, Evidence::ReplayCrashed,
      Evidence::ReplayUnavailable, Evidence::ReplayFailed, Evidence::DidNotReplay,
      Evidence::CodeRunsDifferBeyondRounding, Evidence::ReducedRunsDifferBeyondRounding,
      Evidence::GraphRunsDifferBeyondRounding, Evidence::RunsDifferInBits,
      Evidence::ReducedRunsDifferInBits, Evidence::TimedOut, Evidence::ReducedOnlyUnchecked,
      Evidence::LevelRequired, Evidence::RefutationNotReproducedEagerly, Evidence::ReferenceRaisesOnCode,
      Evidence::CodeNotRun};
  return all;
}

std::string_view evidenceName(Evidence e) {
  switch (e) {
  case Evidence::EqualAsWritten: return "EqualAsWritten";
  case Evidence::EqualAfterNormalization: return "EqualAfterNormalization";
  case Evidence::Proven: return "Proven";
  case Evidence::StoredProof: return "StoredProof";
  case Evidence::ProvenRounded: return "ProvenRounded";
  case Evidence::DiffersByRoundingOnly: return "DiffersByRoundingOnly";
  case Evidence::RealOnTheWay: return "RealOnTheWay";
  case Evidence::NotProven: return "NotProven";
  case Evidence::TypesDiffer: return "TypesDiffer";
  case Evidence::RefutedReplayed: return "RefutedReplayed";
  case Evidence::RefutedOpMissing: return "RefutedOpMissing";
  case Evidence::ProductionRaises: return "ProductionRaises";
  case Evidence::ReferenceRaises: return "ReferenceRaises";
  case Evidence::ReplayCrashed: return "ReplayCrashed";
  case Evidence::ReplayUnavailable: return "ReplayUnavailable";
  case Evidence::ReplayFailed: return "ReplayFailed";
  case Evidence::DidNotReplay: return "DidNotReplay";
  case Evidence::CodeRunsDifferBeyondRounding: return "CodeRunsDifferBeyondRounding";
  case Evidence::ReducedRunsDifferBeyondRounding: return "ReducedRunsDifferBeyondRounding";
  case Evidence::GraphRunsDifferBeyondRounding: return "GraphRunsDifferBeyondRounding";
  case Evidence::RunsDifferInBits: return "RunsDifferInBits";
  case Evidence::ReducedRunsDifferInBits: return "ReducedRunsDifferInBits";
  case Evidence::TimedOut: return "TimedOut";
  case Evidence::ReducedOnlyUnchecked: return "ReducedOnlyUnchecked";
  case Evidence::LevelRequired: return "LevelRequired";
  case Evidence::RefutationNotReproducedEagerly: return "RefutationNotReproducedEagerly";
  case Evidence::ReferenceRaisesOnCode: return "ReferenceRaisesOnCode";
  case Evidence::CodeNotRun: return "CodeNotRun";
  }
  return "?";
}

bool refutes(Evidence e) { return rule(Ruling{}, e).verdict == Verdict::NotEquivalent; }

bool isProof(Evidence e) {
  return e == Evidence::EqualAsWritten || e == Evidence::EqualAfterNormalization || e == Evidence::Proven ||
         e == Evidence::StoredProof || e == Evidence::ProvenRounded;
}

bool isRun(Evidence e) {
  return e == Evidence::CodeRunsDifferBeyondRounding || e == Evidence::ReducedRunsDifferBeyondRounding ||
         e == Evidence::GraphRunsDifferBeyondRounding ||
         e == Evidence::RunsDifferInBits || e == Evidence::ReducedRunsDifferInBits ||
         e == Evidence::RefutationNotReproducedEagerly || e == Evidence::ReferenceRaisesOnCode ||
         e == Evidence::CodeNotRun;
}

}  // namespace torchtv
