// Verdicts, levels and the result of a check. Every string a user or a test
// matches on is defined in verdict.cpp (Note [Verdict strings]).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/sem/assumption.h"
#include "src/verify/obstacle.h"
#include "src/verify/reason_code.h"

namespace torchtv {

class Graph;

enum class Verdict { Equivalent, NotEquivalent, Unknown, Error };
// None goes with every verdict but Equivalent. From strongest to weakest: Bitwise, Real, Rounded
// (Note [Equivalence up to rounding] in src/verify/roundings.h); the values are stored (proof cache).
enum class Level { None, Bitwise, Real, Rounded };

std::string_view verdictName(Verdict v);  // "equivalent", "not_equivalent", ...
std::string_view levelName(Level l);      // "bitwise", "real", "rounded", "" for None
// The weaker of two levels of equivalent outputs (None counts as no level: the other wins).
Level weakerLevel(Level a, Level b);
int exitCode(Verdict v);                  // 0, 1, 2, 3 as in README.md's verdict table
// The assumptions of a verdict (Note [Assumptions as data] in src/sem/assumption.h), one line per
// kind with the count of places and one example: a 126-layer step assumes "a variance plus eps is
// positive" once, not once per layer. `assumptions` maps each assumption to the number of proven
// places (cut points, outputs) resting on it: a region proven once and reused in every layer names
// the first layer's values, and counts once per layer it is reused in. The normal form's kinds
// (a value a fractional power takes is positive, a divisor nonzero, a masked reduction keeps some
// element) are led by "level real assumes"; an index input's range (Note [Index inputs in range] in
// src/verify/input_domains.h) is an assumption of every level and counts once per input, as does a
// range the user declared (Note [Declared input domains]).
using AssumptionCounts = std::map<sem::Assumption, size_t>;
std::vector<std::string> summarizeRealAssumptions(const AssumptionCounts &assumptions);

// How bad a verdict is for a gate: Equivalent < Unknown < NotEquivalent < Error.
int severity(Verdict v);

// Where a value came from, for the diff: a node name, its op and source line.
struct Site {
  std::string value;  // value name in its graph
  std::string op;
  std::string loc;    // "file:line" or empty
  // Note [Runs of a line]: code in a loop (a layer) puts one node per iteration at the same
  // line; this node is the `run`-th of the `runs` nodes of its op at its line, in the order the
  // code ran (topological order). 0 when not counted.
  int run = 0, runs = 0;
};

// What an equivalence at level rounded rests on, one site each (Note [Equivalence up to rounding]
// in src/verify/roundings.h): two constants the two sides wrote for one real, or a cast on one
// side only that narrows a floating value on purpose.
struct Rounding {
  enum class Kind { Constants, NarrowingCast };
  Kind kind = Kind::Constants;
  // Constants: the two values as written ("0.35355339059327373", "1/2.8284271247461903").
  // NarrowingCast: the cast as "f32 -> bf16" in `production` or `reference`, whichever side casts.
  std::string reference, production;
  std::string dtype;  // Constants: the dtype they compute in; NarrowingCast: the dtype cast to
  std::string loc;    // "file:line" of the site (the side that casts; the production constant), or ""
  // The perturbation introduced at the site, relative: |a - b| / |a| for constants, the unit
  // roundoff of the dtype cast to; not a bound on the outputs.
  double bound = 0;
  bool operator==(const Rounding &o) const {
    return kind == o.kind && reference == o.reference && production == o.production && dtype == o.dtype &&
           loc == o.loc;
  }
};

struct OutputResult {
  std::string name;
  Verdict verdict = Verdict::Unknown;
  Level level = Level::None;
  // The verdict table's row that decided it (Note [Verdict table]); `reason` is its text.
  ReasonCode code = ReasonCode::None;
  std::string reason;
  std::optional<Site> referenceSite;   // where the two sides start to differ
  std::optional<Site> productionSite;
  std::vector<Rounding> roundings;  // level rounded: every site its proof rests on
  // An undecided output: what running the code showed of it (Note [Evidence of undecided
  // outputs] in src/verify/cross_check.h); "" when nothing ran.
  std::string runs;
  // An undecided output: what stood in the way, and the hint rendered from it (Note [What would
  // decide it] in src/verify/obstacle.h); "" when nothing the user sets would help.
  std::vector<Blocker> blockers;
  std::string toDecide;
};

struct TensorValues {
  std::string name;
  std::string type;  // "f32[4,8]"
  std::vector<double> values;
};

// The first intermediate value where production departs from the reference on
// a counterexample (Note [Localized counterexamples] in src/verify/localize.h).
struct IntermediateDifference {
  Site reference, production;
  std::vector<long long> index;  // first element where the two differ
  double referenceValue = 0, productionValue = 0;
  // "shape differs: production f32[1,32], reference f32[8,1]" when no
  // reference value has production's type (the values are then each one's
  // first element); "" when the types agree.
  std::string typeDifference;
  // False when the types alone are the difference (outputs whose types differ,
  // Note [Localized type differences] in src/verify/localize.h): no values,
  // no index.
  bool hasValues = true;
};

struct Counterexample {
  std::vector<TensorValues> inputs;
  std::string output;
  std::vector<long long> index;
  double referenceValue = 0;
  double productionValue = 0;
  std::string note;  // e.g. "types differ"
  std::string shrunk;  // what shrinking did to the input found, "" when nothing (Note [Shrinking counterexamples])
  std::optional<IntermediateDifference> firstDifference;
};

struct CheckStats {
  size_t referenceNodes = 0;
  size_t productionNodes = 0;
  double seconds = 0;
  size_t distinctProofs = 0;  // residual regions proven (memoized by structure)
  size_t cacheHits = 0;       // regions answered from the memo
  // Regions answered from the persistent proof cache, and looked up there in
  // vain (Note [Proof cache]).
  size_t proofCacheHits = 0, proofCacheMisses = 0;
  size_t solverQueries = 0;   // Z3 queries run
  size_t cutPoints = 0;        // intermediate values proven equal and merged (Note [Cut points])
  size_t cutPointAttempts = 0; // candidate pairs the cut-point search sent to the prover
  size_t cutPointsReplayed = 0; // values decided from an earlier run's record (Note [Cut search record])
  // The whole decision from the store (Note [Result cache]): "off", "hit" or "miss".
  const char *resultCache = "off";
};

// `--self-check`: every equivalent output re-checked by concrete evaluation.
struct SelfCheck {
  bool ran = false;
  bool agreed = true;
  size_t runs = 0;
  std::string detail;
};

// Note [Match map]
// For the diff report: each value of the matched graphs (inputs and node
// results, by name) with its number in the value-numbering table shared by both
// graphs. A value whose number also occurs on the other side has a proven-equal
// counterpart there; the others form the residual regions. Empty when the
// graphs were never matched (errors).
struct MatchMap {
  std::map<std::string, int> reference;
  std::map<std::string, int> production;
};

struct CheckResult {
  Verdict verdict = Verdict::Unknown;
  Level level = Level::None;
  ReasonCode code = ReasonCode::None;
  std::string reason;
  std::vector<OutputResult> outputs;
  std::optional<Counterexample> counterexample;
  std::vector<std::string> assumptions;
  std::vector<std::string> warnings;  // the capture's (CaptureEvidence::warnings)
  std::vector<Rounding> roundings;  // of the equivalent outputs, each site once (summarize)
  CheckStats stats;
  // Where an error came from (file:line:col), for Error verdicts.
  std::string errorLocation;
  MatchMap match;
  // The graphs the match map describes when normalization rewrote the inputs
  // (null: the inputs as given were compared). Reports draw these.
  std::shared_ptr<const Graph> comparedReference, comparedProduction;
  std::optional<SelfCheck> selfCheck;
};

// Overall verdict from per-output ones: the worst verdict wins; equivalent
// outputs combine to the weakest level, and their roundings to one list.
void summarize(CheckResult &r);

// `--require bitwise`: an equivalence that holds only at level real or rounded
// does not meet the requirement and becomes unknown (exit 2), naming why;
// `--require real` does the same to level rounded. Rounded (the default)
// accepts every level.
enum class RequiredLevel { Rounded, Real, Bitwise };
void applyRequirement(CheckResult &r, RequiredLevel required);

CheckResult errorResult(const std::string &message, const std::string &location = "");

// Note [Verdict strings]
// Reasons the engine gives; tests match on these prefixes.
namespace reasons {
extern const char *const kStructurallyEqual;
extern const char *const kStructurallyEqualReal;
extern const char *const kThroughCutPoints;
extern const char *const kUninterpretedOp;
// A known ATen/prims op without semantics (Note [Declared ops] in ir/op_registry.cpp).
extern const char *const kNoSemanticsOp;
// A call drawing random numbers (Note [Random calls] in src/match/value_numbering.h).
extern const char *const kRandomOp;
// A custom op the fusion library defines, left unexpanded.
extern const char *const kDefinitionNotMatched;
extern const char *const kDefinitionMisfit;
extern const char *const kDefinitionNotExpanded;
extern const char *const kNoStructuralMatch;
extern const char *const kTypeMismatch;
extern const char *const kAllOutputsEquivalent;
extern const char *const kSomeOutputsDiffer;
extern const char *const kSomeOutputsUnknown;
extern const char *const kRealOnlyButBitwiseRequired;
extern const char *const kRoundedOnlyButRealRequired;
extern const char *const kRoundedOnlyButBitwiseRequired;
// Note [Equivalence up to rounding] in src/verify/roundings.h.
extern const char *const kEqualUpToRounding;
extern const char *const kDeterminismAssumption;
// `torchtv ci`: what happened to a pair whose check gave no verdict.
extern const char *const kCiTimedOut;
extern const char *const kCiCrashed;
extern const char *const kCiNoResult;
extern const char *const kCiVerifyUnavailable;
extern const char *const kProvenBitwise;
extern const char *const kRealNormalForm;
extern const char *const kRealZ3;
extern const char *const kRealElementByElement;
extern const char *const kNotDecidedInTime;
extern const char *const kNotProven;
// Appended to the reason of a region answered by the persistent proof cache
// (the values a reason quotes are those of the run that stored it).
extern const char *const kFromProofCache;
extern const char *const kRefuted;
extern const char *const kDidNotReplay;
extern const char *const kReplayUnavailable;
extern const char *const kReplayedByLibTorch;
extern const char *const kNotReplayableByLibTorch;
// Note [Confirming counterexamples]: a non-finite difference needs LibTorch's kernels.
extern const char *const kNonFiniteNotReplayed;
// Note [Replay outcomes fail closed] in src/verify/counterexample_replay.h.
extern const char *const kReferenceRaisesOnCounterexample;
// Note [Replay isolation]: why a replay child gave no outcome.
extern const char *const kReplayCrashed;
extern const char *const kReplayHung;
extern const char *const kReplayDied;
extern const char *const kMonolithicPrefix;
extern const char *const kTimeLimit;
extern const char *const kRealAssumptionPrefix;
// Note [Reference kernel domains]: production raised through LibTorch where the reference computes a value.
extern const char *const kProductionRaises;
// Note [Widening the frontier]: a real-level model over the graph inputs, and one over a frontier
// (abstracted values, which the graphs' inputs may never produce: no counterexample).
extern const char *const kRealDifferOnInputs;
extern const char *const kRealDifferOnAbstracted;
extern const char *const kMayBeUnreachable;
extern const char *const kLongSumsUninterpreted;
// Note [Cross-checks] in src/verify/cross_check.h.
extern const char *const kInternalInconsistency;
extern const char *const kModifiesInput;
extern const char *const kRunsDifferInBits;
extern const char *const kKernelsDifferInBits;
extern const char *const kRefutedByRunning;
// Note [A refutation reproduces on the code] in src/verify/code_runs.h.
extern const char *const kCaptureIsNotTheCode;
extern const char *const kReproducedOnTheCode;
extern const char *const kCodeNotRun;
extern const char *const kRefutedOnAnotherInput;
// Note [Refuting at reduced shapes] in src/verify/reduced_shapes.h.
extern const char *const kReducedShapes;
extern const char *const kReducedCapturedAgain;
extern const char *const kReducedCapturedOnly;
extern const char *const kRunsCounterexampleRefined;
extern const char *const kConfirmedByReplay;
extern const char *const kReducedOnlyUnchecked;
extern const char *const kReducedNotShrunk;
extern const char *const kReducedNotCaptured;
extern const char *const kReducedOtherInterface;
extern const char *const kReducedPastBudget;
extern const char *const kReducedPastBudgetTail;
extern const char *const kReducedNotConfirmed;
extern const char *const kReducedNotReplayed;
// Note [Oversized definitions] in src/verify/region.h.
extern const char *const kOversizedDefinition;
}  // namespace reasons

}  // namespace torchtv
