// Note [Verdict table]: every row from every state, against the table's invariants; and the
// replay outcomes that fail closed (Note [Replay outcomes fail closed]).
#include <doctest/doctest.h>

#include <string>

#include "ir/text_format.h"
#include "src/verify/counterexample.h"
#include "src/verify/verdict_table.h"

using namespace torchtv;

namespace {

// Every state an output can stand at when evidence arrives.
std::vector<Ruling> everyState() {
  return {Ruling{},
          {Verdict::Unknown, Level::None, ReasonCode::NotProven},
          {Verdict::Equivalent, Level::Bitwise, ReasonCode::ProvenBitwise},
          {Verdict::Equivalent, Level::Bitwise, ReasonCode::StructurallyEqual},
          {Verdict::Equivalent, Level::Real, ReasonCode::ProvenReal},
          {Verdict::Equivalent, Level::Rounded, ReasonCode::ProvenRounded},
          {Verdict::NotEquivalent, Level::None, ReasonCode::Refuted},
          {Verdict::NotEquivalent, Level::None, ReasonCode::RefutedByEvaluator},
          {Verdict::NotEquivalent, Level::None, ReasonCode::ProductionRaises},
          {Verdict::NotEquivalent, Level::None, ReasonCode::RefutedByRunning},
          {Verdict::NotEquivalent, Level::None, ReasonCode::TypesDiffer},
          {Verdict::Error, Level::None, ReasonCode::Error}};
}

// Stronger claims of equivalence rank higher: bitwise > real > rounded > anything else.
int strength(const Ruling &r) {
  if (r.verdict != Verdict::Equivalent) return 0;
  return r.level == Level::Bitwise ? 3 : r.level == Level::Real ? 2 : 1;
}

std::string row(const Ruling &before, Evidence e, Level l) {
  return std::string(verdictName(before.verdict)) + "/" + std::string(levelName(before.level)) + " + " +
         std::string(evidenceName(e)) + "(" + std::string(levelName(l)) + ")";
}

}  // namespace

TEST_CASE("the verdict table: every row keeps the invariants") {
  size_t rows = 0;
  for (const Ruling &before : everyState())
    for (Evidence e : everyEvidence())
      for (Level l : {Level::None, Level::Bitwise, Level::Real, Level::Rounded}) {
        const Ruling after = rule(before, e, l);
        INFO(row(before, e, l), " -> ", verdictName(after.verdict), "/", levelName(after.level), " ",
             reasonCodeName(after.code));
        ++rows;
        // The level goes with equivalent only.
        CHECK((after.level == Level::None) == (after.verdict != Verdict::Equivalent));
        // Nothing but a proof makes equivalent.
        if (!isProof(e) && before.verdict != Verdict::Equivalent) CHECK(after.verdict != Verdict::Equivalent);
        // Runs never strengthen a verdict: no stronger claim of equivalence after them; nor does
        // a requirement, nor a difference the normal form proves a rounding (it refutes nothing).
        if (isRun(e) || e == Evidence::LevelRequired || e == Evidence::DiffersByRoundingOnly)
          CHECK(strength(after) <= strength(before));
        CHECK_FALSE(refutes(Evidence::DiffersByRoundingOnly));
        if (e == Evidence::DiffersByRoundingOnly) CHECK(after == before);
        // A rounded proof claims no more than rounded.
        if (e == Evidence::ProvenRounded && after.verdict == Verdict::Equivalent) CHECK(after.level == Level::Rounded);
        // Only evidence that refutes makes not_equivalent; a reference that raises never does.
        if (before.verdict != Verdict::NotEquivalent && after.verdict == Verdict::NotEquivalent)
          CHECK(refutes(e));
        CHECK_FALSE(refutes(Evidence::ReferenceRaises));
        if (e == Evidence::ReferenceRaises) CHECK((after.verdict == Verdict::NotEquivalent) == (before.verdict == Verdict::NotEquivalent));
        // A timeout or a crash (or any replay that did not show the difference) decides nothing.
        if (e == Evidence::TimedOut || e == Evidence::ReplayCrashed || e == Evidence::ReplayUnavailable ||
            e == Evidence::ReplayFailed || e == Evidence::DidNotReplay || e == Evidence::ReferenceRaises)
          CHECK(after.verdict == before.verdict);
        // Code runs that do not reproduce a refutation (Note [A refutation reproduces on the code])
        // never make not_equivalent, and take back only refutations found on the graphs.
        if (e == Evidence::RefutationNotReproducedEagerly || e == Evidence::ReferenceRaisesOnCode ||
            e == Evidence::CodeNotRun) {
          CHECK_FALSE(refutes(e));
          if (before.verdict == Verdict::NotEquivalent && refutedOnGraphs(before.code))
            CHECK(after.verdict == Verdict::Unknown);
          else
            CHECK(after == before);
        }
        // not_equivalent never becomes equivalent; an error stays an error.
        if (before.verdict == Verdict::NotEquivalent) CHECK(after.verdict != Verdict::Equivalent);
        if (before.verdict == Verdict::Error) CHECK(after == before);
        // A changed verdict names the row that changed it.
        if (after.verdict != before.verdict) CHECK(after.code != ReasonCode::None);
      }
  CHECK(rows == everyState().size() * everyEvidence().size() * 4);
}

TEST_CASE("the verdict table: the rows a reader relies on") {
  const Ruling pending{Verdict::Unknown, Level::None, ReasonCode::NotProven};
  const Ruling bitwise{Verdict::Equivalent, Level::Bitwise, ReasonCode::ProvenBitwise};
  const Ruling real{Verdict::Equivalent, Level::Real, ReasonCode::ProvenReal};
  CHECK(rule(pending, Evidence::Proven, Level::Real) == real);
  CHECK(rule(pending, Evidence::RefutedReplayed).verdict == Verdict::NotEquivalent);
  CHECK(rule(pending, Evidence::RefutedOpMissing).code == ReasonCode::RefutedByEvaluator);
  CHECK(rule(pending, Evidence::ProductionRaises).code == ReasonCode::ProductionRaises);
  CHECK(rule(pending, Evidence::ReferenceRaises) ==
        Ruling{Verdict::Unknown, Level::None, ReasonCode::ReferenceRaises});
  CHECK(rule(bitwise, Evidence::RunsDifferInBits).level == Level::Real);
  CHECK(rule(bitwise, Evidence::ReducedRunsDifferInBits) == bitwise);
  CHECK(rule(real, Evidence::CodeRunsDifferBeyondRounding).code == ReasonCode::RunsContradictProof);
  CHECK(rule(real, Evidence::GraphRunsDifferBeyondRounding).code == ReasonCode::InternalInconsistency);
  CHECK(rule(pending, Evidence::CodeRunsDifferBeyondRounding).code == ReasonCode::RefutedByRunning);
  const Ruling rounded{Verdict::Equivalent, Level::Rounded, ReasonCode::ProvenRounded};
  CHECK(rule(pending, Evidence::ProvenRounded) == rounded);
  CHECK(rule(pending, Evidence::Proven, Level::Rounded) == rounded);
  CHECK(rule(real, Evidence::ProvenRounded).level == Level::Rounded);
  CHECK(rule(pending, Evidence::DiffersByRoundingOnly) == pending);
  // --require: rounded < real < bitwise.
  CHECK(rule(real, Evidence::LevelRequired, Level::Bitwise).code == ReasonCode::RealButBitwiseRequired);
  CHECK(rule(real, Evidence::LevelRequired, Level::Real) == real);
  CHECK(rule(real, Evidence::LevelRequired, Level::Rounded) == real);
  CHECK(rule(bitwise, Evidence::LevelRequired, Level::Bitwise) == bitwise);
  CHECK(rule(rounded, Evidence::LevelRequired, Level::Rounded) == rounded);
  CHECK(rule(rounded, Evidence::LevelRequired, Level::Real).code == ReasonCode::RoundedButRealRequired);
  CHECK(rule(rounded, Evidence::LevelRequired, Level::Bitwise).code == ReasonCode::RoundedButBitwiseRequired);
  CHECK(rule(rounded, Evidence::LevelRequired, Level::Bitwise).verdict == Verdict::Unknown);
  // A pair file's graph refutations held against the code.
  const Ruling onGraphs{Verdict::NotEquivalent, Level::None, ReasonCode::Refuted};
  const Ruling byRunning{Verdict::NotEquivalent, Level::None, ReasonCode::RefutedByRunning};
  CHECK(rule(onGraphs, Evidence::RefutationNotReproducedEagerly) ==
        Ruling{Verdict::Unknown, Level::None, ReasonCode::CaptureIsNotTheCode});
  CHECK(rule(onGraphs, Evidence::ReferenceRaisesOnCode) ==
        Ruling{Verdict::Unknown, Level::None, ReasonCode::ReferenceRaises});
  CHECK(rule(onGraphs, Evidence::CodeNotRun) == Ruling{Verdict::Unknown, Level::None, ReasonCode::CodeNotRun});
  CHECK(rule(byRunning, Evidence::RefutationNotReproducedEagerly) == byRunning);
  // The code's runs refute an output the graphs refute too, in either order: the graphs'
  // counterexample, run through the code at another input, cannot take that back (a planted bug's
  // gradients were unknown "refuted on the graphs on an input that was not run through the code").
  CHECK(rule(byRunning, Evidence::RefutedReplayed) == byRunning);
  CHECK(rule(onGraphs, Evidence::CodeRunsDifferBeyondRounding) == byRunning);
  CHECK(rule(rule(byRunning, Evidence::RefutedReplayed), Evidence::CodeNotRun) == byRunning);
  CHECK(rule(rule(onGraphs, Evidence::CodeRunsDifferBeyondRounding), Evidence::CodeNotRun) == byRunning);
  // Every replay outcome is a row of its own (Note [Replay outcomes fail closed]).
  using K = ReplayOutcome::Kind;
  CHECK(evidenceOfReplay(K::ReferenceRaised) == Evidence::ReferenceRaises);
  CHECK(evidenceOfReplay(K::ProductionRaised) == Evidence::ProductionRaises);
  CHECK(evidenceOfReplay(K::OpMissing) == Evidence::RefutedOpMissing);
  CHECK(evidenceOfReplay(K::Crashed) == Evidence::ReplayCrashed);
  CHECK(evidenceOfReplay(K::Failed) == Evidence::ReplayFailed);
  for (K k : {K::Replayed, K::DidNotReplay, K::OpMissing, K::ReferenceRaised, K::ProductionRaised, K::Failed,
              K::Unavailable, K::Crashed})
    CHECK(refutes(evidenceOfReplay(k)) == (k == K::Replayed || k == K::OpMissing || k == K::ProductionRaised));
}

namespace {

// LibTorch's gather takes int64 indices only and raises on an int32 index, which torchtv's
// evaluator reads as any integer: a kernel that raises on an input the evaluator computes.
const char *kRaisingGather = R"(graph @raises(%x: f32[3], %i: i32[3]) -> (f32[3]) {
  %y: f32[3] = aten::gather(%x, %i) {dim=0}
  return %y
}
graph @runs(%x: f32[3], %i: i32[3]) -> (f32[3]) {
  %j: i64[3] = aten::_to_copy(%i) {dtype=i64}
  %y: f32[3] = aten::gather(%x, %j) {dim=0}
  %z: f32[3] = aten::mul.Scalar(%y) {other=2.0}
  return %z
}
)";

// A difference the evaluator confirmed on output 0, replayed and recorded.
CheckResult recorded(const Graph &ref, const Graph &prod) {
  Refutation r;
  r.inputs = {eval::EvalTensor{ref.inputs()[0]->type, {1.0L, 2.0L, 3.0L}},
              eval::EvalTensor{ref.inputs()[1]->type, {2.0L, 0.0L, 1.0L}}};
  r.difference.output = 0;
  r.difference.index = {0};
  r.difference.referenceValue = 3;
  r.difference.productionValue = 6;
  r.how = "a test's input";
  CheckResult result;
  OutputResult out;
  out.name = "y";
  applyEvidence(out, Evidence::NotProven);
  out.reason = "not proven";
  result.outputs.push_back(out);
  auto confirmer = makeEvaluatorConfirmer();
  recordRefutation(ref, prod, ref, prod, r, 0, result, *confirmer);
  return result;
}

}  // namespace

// Before the table, a reference whose kernel raised fell into "not replayable", and the
// evaluator's word alone made the output not_equivalent.
TEST_CASE("a counterexample on which the reference's kernel raises refutes nothing") {
  Module m = parseModule(kRaisingGather, "t.tvir");
  CheckResult r = recorded(*m.find("raises"), *m.find("runs"));
  const OutputResult &out = r.outputs[0];
  CHECK(out.verdict == Verdict::Unknown);
  CHECK(out.code == ReasonCode::ReferenceRaises);
  CHECK(out.reason.find(reasons::kReferenceRaisesOnCounterexample) != std::string::npos);
  CHECK(out.reason.find("aten::gather") != std::string::npos);
  CHECK_FALSE(r.counterexample);
}

TEST_CASE("a counterexample on which production's kernel raises and the reference runs refutes") {
  Module m = parseModule(kRaisingGather, "t.tvir");
  CheckResult r = recorded(*m.find("runs"), *m.find("raises"));
  const OutputResult &out = r.outputs[0];
  CHECK(out.verdict == Verdict::NotEquivalent);
  CHECK(out.code == ReasonCode::ProductionRaises);
  CHECK(out.reason.find(reasons::kProductionRaises) != std::string::npos);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->note.find(reasons::kProductionRaises) != std::string::npos);
}
