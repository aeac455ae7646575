// Runs held against verdicts (Note [Cross-checks] in src/verify/cross_check.h).
#include <doctest/doctest.h>

#include <string>

#include "src/verify/cross_check.h"

using namespace torchtv;

namespace {

CheckResult oneOutput(Verdict v, Level level) {
  CheckResult r;
  OutputResult o;
  o.name = "loss";
  o.verdict = v;
  o.level = level;
  o.reason = "proven";
  r.outputs.push_back(o);
  summarize(r);
  return r;
}

EagerEvidence runs(bool reduced, bool bitwiseEqual, bool beyond) {
  EagerEvidence ev;
  ev.ran = true;
  ev.reducedShapes = reduced;
  ev.inputs = reduced ? "small_inputs() (x [4, 8] for [4096, 4096]) and 3 seeded random draws of their shapes"
                      : "example_inputs() and 3 seeded random draws";
  EagerOutputCheck c;
  c.output = "loss";
  c.draws = 4;
  c.bitwiseEqual = bitwiseEqual;
  c.elementsDiffer = bitwiseEqual ? 0 : 1;
  c.maxUlp = bitwiseEqual ? 0 : 1;
  if (beyond) c.beyondRounding = "small_inputs(): in float64 the outputs still differ by 0.5";
  ev.outputs.push_back(c);
  return ev;
}

}  // namespace

TEST_CASE("cross-check: runs at the captured shapes weaken bitwise on a bit difference") {
  CheckResult r = oneOutput(Verdict::Equivalent, Level::Bitwise);
  applyRunEvidence(r, runs(false, false, false), "running", reasons::kRunsDifferInBits, /*refutes=*/true);
  CHECK(r.outputs[0].verdict == Verdict::Equivalent);
  CHECK(r.outputs[0].level == Level::Real);
}

TEST_CASE("cross-check: runs at reduced shapes say nothing about bits at the captured shapes") {
  CheckResult r = oneOutput(Verdict::Equivalent, Level::Bitwise);
  applyRunEvidence(r, runs(true, false, false), "running", reasons::kRunsDifferInBits, /*refutes=*/true);
  CHECK(r.outputs[0].verdict == Verdict::Equivalent);
  CHECK(r.outputs[0].level == Level::Bitwise);
}

TEST_CASE("cross-check: runs at reduced shapes refute an unknown output, stating the shapes") {
  CheckResult r = oneOutput(Verdict::Unknown, Level::None);
  applyRunEvidence(r, runs(true, false, true), "running", reasons::kRunsDifferInBits, /*refutes=*/true);
  CHECK(r.outputs[0].verdict == Verdict::NotEquivalent);
  CHECK(r.verdict == Verdict::NotEquivalent);
  CHECK(r.outputs[0].reason.find("at the reduced shapes of small_inputs() (x [4, 8] for [4096, 4096])") !=
        std::string::npos);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->output == "loss");
}

TEST_CASE("cross-check: runs of the code that differ beyond rounding refute an equivalent, naming the inconsistency") {
  for (bool reduced : {false, true}) {
    CheckResult r = oneOutput(Verdict::Equivalent, Level::Real);
    applyRunEvidence(r, runs(reduced, false, true), "running", reasons::kRunsDifferInBits, /*refutes=*/true);
    CHECK(r.outputs[0].verdict == Verdict::NotEquivalent);
    CHECK(r.verdict == Verdict::NotEquivalent);
    CHECK(r.outputs[0].reason.find(reasons::kInternalInconsistency) != std::string::npos);
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->output == "loss");
  }
}

TEST_CASE("cross-check: runs of the graphs (--self-check) that differ beyond rounding withdraw an equivalent") {
  CheckResult r = oneOutput(Verdict::Equivalent, Level::Real);
  applyRunEvidence(r, runs(false, false, true), "--self-check", reasons::kKernelsDifferInBits, /*refutes=*/false);
  CHECK(r.outputs[0].verdict == Verdict::Unknown);
  CHECK(r.outputs[0].reason.find(reasons::kInternalInconsistency) != std::string::npos);
  CHECK(!r.counterexample);
}

// Note [Evidence of undecided outputs]: an unknown output says what the runs showed, a decided
// one does not, and the evidence never changes a verdict.
TEST_CASE("cross-check: an unknown output carries what the runs of the code showed") {
  CheckResult agree = oneOutput(Verdict::Unknown, Level::None);
  describeRunsOfUndecided(agree, runs(false, true, false));
  CHECK(agree.outputs[0].verdict == Verdict::Unknown);
  CHECK(agree.outputs[0].runs ==
        "the two functions agree bit for bit on 4 inputs (example_inputs() and 3 seeded random draws)");

  CheckResult rounding = oneOutput(Verdict::Unknown, Level::None);
  EagerEvidence f32 = runs(false, false, false);
  f32.outputs[0].elementsDiffer = 768;
  f32.outputs[0].maxUlp = 32433518;
  f32.outputs[0].inconclusive = "aten::mm ran in float32 in the float64 runs (model.py:12)";
  describeRunsOfUndecided(rounding, f32);
  CHECK(rounding.outputs[0].verdict == Verdict::Unknown);
  CHECK(rounding.outputs[0].runs.find("768 elements differ by up to 32433518 ulp") != std::string::npos);
  CHECK(rounding.outputs[0].runs.find("ran in float32") != std::string::npos);

  CheckResult proven = oneOutput(Verdict::Equivalent, Level::Real);
  describeRunsOfUndecided(proven, runs(false, false, false));
  CHECK(proven.outputs[0].runs.empty());

  CheckResult notRun = oneOutput(Verdict::Unknown, Level::None);
  EagerEvidence none;
  none.why = "the pair has no example_inputs() values (shape-only)";
  describeRunsOfUndecided(notRun, none);
  CHECK(notRun.outputs[0].runs == "the code did not run: the pair has no example_inputs() values (shape-only)");
}
