#include "src/verify/verdict.h"

#include <algorithm>

#include "src/verify/verdict_table.h"

namespace torchtv {

namespace reasons {
const char *const kStructurallyEqual = "structurally equal";
const char *const kStructurallyEqualReal =
    "structurally equal after normalization, through rewrites that hold over the reals only "
    "(an expanded ATen composite or a real rule)";
const char *const kThroughCutPoints =
    "through intermediate values proven equal by the prover and merged (cut points)";
const char *const kUninterpretedOp = " has no definition: an uninterpreted function, equal only on equal arguments";
const char *const kNoSemanticsOp =
    " has no semantics in torchtv: an uninterpreted function, equal only on equal arguments";
const char *const kRandomOp = " is random: two calls never compute the same values, so it matches nothing";
const char *const kDefinitionNotMatched =
    " has a definition, but none matches this call (a definition captured from FUSIONS holds only for the "
    "shapes and constant arguments of the call it was captured at): not expanded, an uninterpreted function, "
    "equal only on equal arguments";
const char *const kDefinitionMisfit =
    " has a definition that does not fit this call, so the call is not expanded (an uninterpreted function, equal "
    "only on equal arguments): ";
const char *const kDefinitionNotExpanded = " has a definition, which --no-normalize does not expand";
const char *const kNoStructuralMatch = "not proven: the graphs differ structurally";
const char *const kTypeMismatch = "output types differ";
const char *const kAllOutputsEquivalent = "all outputs equivalent";
const char *const kSomeOutputsDiffer = "some outputs differ";
const char *const kSomeOutputsUnknown = "some outputs could not be decided";
const char *const kRealOnlyButBitwiseRequired =
    "equivalent only at level real, but --require bitwise was given";
const char *const kRoundedOnlyButRealRequired =
    "equivalent only up to rounding (level rounded), but --require real was given";
const char *const kRoundedOnlyButBitwiseRequired =
    "equivalent only up to rounding (level rounded), but --require bitwise was given";
const char *const kEqualUpToRounding = "equal over the reals up to the rounding of ";
const char *const kDeterminismAssumption = "each primitive op is deterministic";
const char *const kCiTimedOut = "not decided: the check timed out";
const char *const kCiCrashed = "the check crashed";
const char *const kCiNoResult = "the check printed no result";
const char *const kCiVerifyUnavailable =
    "pair files are checked by `torchtv verify`, which this build of torchtv does not have";
const char *const kProvenBitwise = "proven bit for bit by Z3 (IEEE semantics)";
const char *const kRealNormalForm = "equal over the reals (normal form)";
const char *const kRealZ3 = "equal over the reals (Z3)";
const char *const kNotDecidedInTime = "not decided before the global time limit (Note [Outputs decided before the time limit])";
const char *const kRealElementByElement = "equal over the reals at every element (normal forms element by element)";
const char *const kNotProven = "not proven";
const char *const kFromProofCache = "from the proof cache";
const char *const kRefuted = "refuted: the outputs differ on a concrete input";
const char *const kDidNotReplay = "counterexample did not replay";
const char *const kReplayUnavailable = "counterexample found but not replayed, so not reported as not_equivalent";
const char *const kReplayedByLibTorch = "replayed through LibTorch on the original graphs";
const char *const kNotReplayableByLibTorch = "confirmed by torchtv's evaluator; LibTorch cannot replay it: ";
const char *const kNonFiniteNotReplayed =
    "a NaN or infinity against another value that only torchtv's evaluator shows, so not reported as "
    "not_equivalent (what an op gives on a row masked everywhere changed across torch versions; LibTorch "
    "cannot replay it: ";
const char *const kReferenceRaisesOnCounterexample =
    "counterexample found but the reference's kernel raises on it in LibTorch: the input is outside the "
    "reference's domain, where production may do anything, so not reported as not_equivalent";
const char *const kReplayCrashed = "LibTorch crashed";
const char *const kReplayHung = "LibTorch did not finish replaying within";
const char *const kReplayDied = "the replay process ended abnormally";
const char *const kMonolithicPrefix = "monolithic baseline: ";
const char *const kTimeLimit = "the time limit (--timeout) was reached";
const char *const kRealAssumptionPrefix = "level real assumes ";
const char *const kProductionRaises = "production raises where the reference computes a value";
const char *const kRealDifferOnInputs = "Z3 finds the outputs differ over the reals for some values of the inputs";
const char *const kRealDifferOnAbstracted =
    "Z3 finds the outputs differ over the reals for some values of the abstracted inputs ";
const char *const kLongSumsUninterpreted =
    " and of the sums over more than 16 elements (Z3 takes them as uninterpreted functions at level real, free "
    "to take values no input gives), which may be unreachable; no counterexample";
const char *const kMayBeUnreachable =
    " (the region's frontier: any real values, not computed from the graphs' inputs), which may be unreachable; "
    "no counterexample";
const char *const kModifiesInput = " modifies its input %";
const char *const kInternalInconsistency = "internal inconsistency";
const char *const kRunsDifferInBits = "the captured graph differs from the code that runs";
const char *const kKernelsDifferInBits = "not bit for bit when the graphs are run";
const char *const kRefutedByRunning = "refuted by running the code: the outputs differ beyond rounding";
const char *const kCaptureIsNotTheCode = "the graphs differ on this input but the code does not";
const char *const kReproducedOnTheCode = "reproduced on the code";
const char *const kCodeNotRun = "the graphs differ on this input, but it could not be run through the code";
const char *const kRefutedOnAnotherInput =
    "refuted on the graphs on an input that was not run through the code (the code ran on the counterexample of ";
// Note [Refuting at reduced shapes] in src/verify/reduced_shapes.h.
const char *const kReducedShapes = "at the reduced shapes of ";
const char *const kReducedCapturedAgain = ", where the pair was captured again: ";
const char *const kRunsCounterexampleRefined = "found again on the captured graphs: ";
const char *const kConfirmedByReplay = "confirmed by LibTorch's kernels (Note [Counterexamples through LibTorch])";
const char *const kReducedCapturedOnly = ", where the pair was captured (its runs there refute it): ";
const char *const kReducedOnlyUnchecked =
    "not checked: the runs at small_inputs() refute the pair, so it was captured at those shapes only, and a proof "
    "there says nothing about the example_inputs() shapes (Note [Refuted before the shape-only capture])";
const char *const kReducedNotShrunk = "not shrunk nor localized: ";
const char *const kReducedNotCaptured = "the capture holds no graphs at the reduced shapes";
const char *const kReducedOtherInterface = "the graphs captured at the reduced shapes have other inputs or outputs";
const char *const kReducedPastBudget = "the graphs captured at the reduced shapes are past the evaluation budget (";
const char *const kReducedPastBudgetTail = " elements to evaluate for the cheapest refuted output, budget ";
const char *const kReducedNotConfirmed =
    "torchtv's random inputs found no difference on the graphs captured at the reduced shapes";
const char *const kReducedNotReplayed = "the counterexample on the graphs captured at the reduced shapes did not hold: ";
const char *const kOversizedDefinition =
    "the region contains a definition whose terms grew past 100000 in an earlier region of this check, which "
    "then gave up";
}  // namespace reasons

std::string_view verdictName(Verdict v) {
  switch (v) {
  case Verdict::Equivalent: return "equivalent";
  case Verdict::NotEquivalent: return "not_equivalent";
  case Verdict::Unknown: return "unknown";
  case Verdict::Error: return "error";
  }
  return "error";
}

std::string_view reasonCodeName(ReasonCode c) {
  switch (c) {
  case ReasonCode::None: return "none";
  case ReasonCode::StructurallyEqual: return "structurally_equal";
  case ReasonCode::StructurallyEqualReal: return "structurally_equal_real";
  case ReasonCode::ProvenBitwise: return "proven_bitwise";
  case ReasonCode::ProvenReal: return "proven_real";
  case ReasonCode::ProvenRounded: return "proven_rounded";
  case ReasonCode::FromResultCache: return "from_result_cache";
  case ReasonCode::TypesDiffer: return "types_differ";
  case ReasonCode::Refuted: return "refuted";
  case ReasonCode::RefutedByEvaluator: return "refuted_by_evaluator";
  case ReasonCode::ProductionRaises: return "production_raises";
  case ReasonCode::ReferenceRaises: return "reference_raises";
  case ReasonCode::ReplayCrashed: return "replay_crashed";
  case ReasonCode::ReplayUnavailable: return "replay_unavailable";
  case ReasonCode::ReplayFailed: return "replay_failed";
  case ReasonCode::DidNotReplay: return "did_not_replay";
  case ReasonCode::NotProven: return "not_proven";
  case ReasonCode::TimedOut: return "timed_out";
  case ReasonCode::ReducedOnlyUnchecked: return "reduced_only_unchecked";
  case ReasonCode::RealButBitwiseRequired: return "real_but_bitwise_required";
  case ReasonCode::RoundedButRealRequired: return "rounded_but_real_required";
  case ReasonCode::RoundedButBitwiseRequired: return "rounded_but_bitwise_required";
  case ReasonCode::RefutedByRunning: return "refuted_by_running";
  case ReasonCode::RunsContradictProof: return "runs_contradict_proof";
  case ReasonCode::InternalInconsistency: return "internal_inconsistency";
  case ReasonCode::RunsDifferInBits: return "runs_differ_in_bits";
  case ReasonCode::CaptureIsNotTheCode: return "capture_is_not_the_code";
  case ReasonCode::CodeNotRun: return "code_not_run";
  case ReasonCode::AllOutputsEquivalent: return "all_outputs_equivalent";
  case ReasonCode::SomeOutputsDiffer: return "some_outputs_differ";
  case ReasonCode::SomeOutputsUnknown: return "some_outputs_unknown";
  case ReasonCode::Error: return "error";
  }
  return "none";
}

std::optional<ReasonCode> reasonCodeNamed(std::string_view name) {
  for (int c = 0; c <= static_cast<int>(ReasonCode::Error); ++c)
    if (reasonCodeName(static_cast<ReasonCode>(c)) == name) return static_cast<ReasonCode>(c);
  return std::nullopt;
}

std::string replayRefuting(Evidence e, const std::string &detail) {
  switch (e) {
  case Evidence::RefutedReplayed: return reasons::kReplayedByLibTorch;
  case Evidence::ProductionRaises: return std::string(reasons::kProductionRaises) + " (LibTorch: " + detail + ")";
  default: return reasons::kNotReplayableByLibTorch + detail;
  }
}

std::string replayNotRefuting(Evidence e, const std::string &detail) {
  switch (e) {
  case Evidence::DidNotReplay: return std::string(reasons::kDidNotReplay) + " through LibTorch (" + detail + ")";
  case Evidence::ReferenceRaises: return std::string(reasons::kReferenceRaisesOnCounterexample) + " (" + detail + ")";
  default: return std::string(reasons::kReplayUnavailable) + " (" + detail + ")";
  }
}

std::string_view levelName(Level l) {
  switch (l) {
  case Level::Bitwise: return "bitwise";
  case Level::Real: return "real";
  case Level::Rounded: return "rounded";
  case Level::None: return "";
  }
  return "";
}

Level weakerLevel(Level a, Level b) {
  if (a == Level::None) return b;
  if (b == Level::None) return a;
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;  // the enum runs strongest to weakest
}

std::vector<std::string> summarizeRealAssumptions(const AssumptionCounts &assumptions) {
  using Kind = sem::Assumption::Kind;
  struct Group {
    Kind kind;
    const char *many;  // "<n> values are positive ..."
  };
  static const Group groups[] = {
      {Kind::Positive, " values are positive (arguments of a square root or another fractional power)"},
      {Kind::Nonzero, " divisors are nonzero"},
      {Kind::KeepsElement, " masked reductions keep some element (not masked to -inf)"},
      {Kind::IndexInRange, " index values (inputs, or values computed from them) lie in the range of the dim they "
                           "index (the ops raise outside it)"},
      {Kind::DeclaredRange, " inputs lie in the ranges you declared"},
  };
  std::vector<std::string> out;
  for (const Group &g : groups) {
    const sem::Assumption *first = nullptr;
    size_t places = 0;
    for (const auto &[a, count] : assumptions) {
      if (a.kind != g.kind) continue;
      if (!first) first = &a;
      // A range is one assumption however many proofs read it; the normal form's count per place.
      places += a.realOnly() ? std::max<size_t>(count, 1) : 1;
    }
    if (!first) continue;
    std::string lead = first->realOnly() ? reasons::kRealAssumptionPrefix : "";
    out.push_back(places == 1 ? lead + first->text()
                              : lead + std::to_string(places) + g.many + ", e.g. " + first->text());
  }
  return out;
}

int exitCode(Verdict v) {
  switch (v) {
  case Verdict::Equivalent: return 0;
  case Verdict::NotEquivalent: return 1;
  case Verdict::Unknown: return 2;
  case Verdict::Error: return 3;
  }
  return 3;
}

int severity(Verdict v) {
  switch (v) {
  case Verdict::Equivalent: return 0;
  case Verdict::Unknown: return 1;
  case Verdict::NotEquivalent: return 2;
  case Verdict::Error: return 3;
  }
  return 3;
}

void summarize(CheckResult &r) {
  Verdict worst = Verdict::Equivalent;
  Level level = Level::Bitwise;
  r.roundings.clear();
  for (const OutputResult &o : r.outputs) {
    if (severity(o.verdict) > severity(worst)) worst = o.verdict;
    if (o.verdict != Verdict::Equivalent) continue;
    level = weakerLevel(level, o.level);
    for (const Rounding &x : o.roundings)
      if (std::find(r.roundings.begin(), r.roundings.end(), x) == r.roundings.end()) r.roundings.push_back(x);
  }
  r.verdict = worst;
  r.level = worst == Verdict::Equivalent ? level : Level::None;
  r.code = worst == Verdict::Equivalent      ? ReasonCode::AllOutputsEquivalent
           : worst == Verdict::NotEquivalent ? ReasonCode::SomeOutputsDiffer
           : worst == Verdict::Unknown       ? ReasonCode::SomeOutputsUnknown
                                             : ReasonCode::Error;
  if (r.reason.empty()) {
    r.reason = worst == Verdict::Equivalent      ? reasons::kAllOutputsEquivalent
               : worst == Verdict::NotEquivalent ? reasons::kSomeOutputsDiffer
                                                 : reasons::kSomeOutputsUnknown;
  }
}

namespace {

Level levelOf(RequiredLevel required) {
  switch (required) {
  case RequiredLevel::Rounded: return Level::Rounded;
  case RequiredLevel::Real: return Level::Real;
  case RequiredLevel::Bitwise: return Level::Bitwise;
  }
  return Level::Rounded;
}

// The requirement's reason for the LevelRequired row's code (Note [Verdict table]).
const char *missedRequirement(ReasonCode code) {
  switch (code) {
  case ReasonCode::RealButBitwiseRequired: return reasons::kRealOnlyButBitwiseRequired;
  case ReasonCode::RoundedButRealRequired: return reasons::kRoundedOnlyButRealRequired;
  case ReasonCode::RoundedButBitwiseRequired: return reasons::kRoundedOnlyButBitwiseRequired;
  default: return "";
  }
}

}  // namespace

void applyRequirement(CheckResult &r, RequiredLevel required) {
  // Each output below the requirement misses it too, so that every format
  // (JUnit cases, SARIF results, annotations) fails the same outputs the exit
  // code fails; the proof's reason stays after the requirement's. The roundings
  // stay listed: they say why.
  const Level level = levelOf(required);
  for (OutputResult &o : r.outputs)
    if (applyEvidence(o, Evidence::LevelRequired, level))
      o.reason = std::string(missedRequirement(o.code)) + " (" + o.reason + ")";
  if (applyEvidence(r, Evidence::LevelRequired, level)) r.reason = missedRequirement(r.code);
}

CheckResult errorResult(const std::string &message, const std::string &location) {
  CheckResult r;
  r.verdict = Verdict::Error;
  r.code = ReasonCode::Error;
  r.reason = message;
  r.errorLocation = location;
  return r;
}

}  // namespace torchtv
