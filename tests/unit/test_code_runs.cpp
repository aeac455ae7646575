// Graph refutations held against runs of the code (Note [A refutation
// reproduces on the code] in src/verify/code_runs.h).
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "src/verify/code_runs.h"

using namespace torchtv;

namespace {

// Two outputs refuted on the graphs, the counterexample on the first.
CheckResult refutedOnGraphs() {
  CheckResult r;
  for (const char *name : {"loss", "grad_x"}) {
    OutputResult o;
    o.name = name;
    o.verdict = Verdict::NotEquivalent;
    o.code = ReasonCode::Refuted;
    o.reason = std::string(reasons::kRefuted) + " (seeded random inputs; replayed through LibTorch)";
    r.outputs.push_back(o);
  }
  Counterexample cex;
  cex.inputs.push_back({"x", "f32[2]", {0.0, 1.0}});
  cex.output = "loss";
  cex.referenceValue = -0.153;
  cex.productionValue = 0;
  r.counterexample = cex;
  summarize(r);
  return r;
}

CodeRunner replying(std::string reply, std::string *request = nullptr) {
  return [reply, request](const std::string &req) {
    if (request) *request = req;
    return reply;
  };
}

}  // namespace

TEST_CASE("code runs: an output the code does not show is unknown, the capture is not the code") {
  CheckResult r = refutedOnGraphs();
  std::string request;
  applyCodeRuns(r, replying(R"({"ran": true, "outputs": [
      {"name": "loss", "shows": false, "how": "the code's outputs agree"},
      {"name": "grad_x", "shows": false, "how": "the code's outputs agree"}]})",
                            &request));
  CHECK(request.find(R"("type":"f32[2]")") != std::string::npos);
  CHECK(r.verdict == Verdict::Unknown);
  const OutputResult &loss = r.outputs[0], &gradX = r.outputs[1];
  CHECK(loss.verdict == Verdict::Unknown);
  CHECK(loss.code == ReasonCode::CaptureIsNotTheCode);
  CHECK(loss.reason.rfind(reasons::kCaptureIsNotTheCode, 0) == 0);
  CHECK(loss.reason.find("the capture is not the code that runs") != std::string::npos);
  // grad_x was refuted at an input the pair did not keep: the code agreeing on loss's
  // counterexample says nothing about the capture, and the reason says what was run instead.
  CHECK(gradX.verdict == Verdict::Unknown);
  CHECK(gradX.code == ReasonCode::CodeNotRun);
  CHECK(gradX.reason.rfind(reasons::kRefutedOnAnotherInput, 0) == 0);
  CHECK(gradX.reason.find("counterexample of loss, where this output agrees") != std::string::npos);
  CHECK(gradX.reason.find("the capture is not the code") == std::string::npos);
  for (const OutputResult &o : r.outputs)
    CHECK(o.reason.find(reasons::kRefuted) != std::string::npos);  // the graphs' refutation, kept
  REQUIRE(r.counterexample);  // kept as evidence
  CHECK(r.counterexample->note.find(reasons::kCaptureIsNotTheCode) != std::string::npos);
}

// Note [Verdict table]: a reference that raises when the code runs says the input lies outside its
// domain, a row of its own.
TEST_CASE("code runs: a reference that raises on the counterexample takes the refutation back") {
  CheckResult r = refutedOnGraphs();
  applyCodeRuns(r, replying(R"({"ran": true, "outputs": [
      {"name": "loss", "shows": false, "how": "the reference raises", "reference_raises": true},
      {"name": "grad_x", "shows": false, "how": "the reference raises", "reference_raises": true}]})"));
  CHECK(r.verdict == Verdict::Unknown);
  CHECK(r.outputs[0].code == ReasonCode::ReferenceRaises);
  // grad_x was refuted at another input, which the code did not run: that the reference raises
  // on loss's counterexample says nothing about it.
  CHECK(r.outputs[1].code == ReasonCode::CodeNotRun);
}

TEST_CASE("code runs: an output the code shows stays refuted") {
  CheckResult r = refutedOnGraphs();
  applyCodeRuns(r, replying(R"({"ran": true, "outputs": [
      {"name": "loss", "shows": true, "how": "element [] differs"},
      {"name": "grad_x", "shows": false, "how": "agree"}]})"));
  CHECK(r.verdict == Verdict::NotEquivalent);
  CHECK(r.outputs[0].verdict == Verdict::NotEquivalent);
  CHECK(r.outputs[0].reason.find(reasons::kReproducedOnTheCode) != std::string::npos);
  CHECK(r.outputs[1].verdict == Verdict::Unknown);
}

TEST_CASE("code runs: the counterexample moves to an output the code shows") {
  CheckResult r = refutedOnGraphs();
  applyCodeRuns(r, replying(R"({"ran": true, "outputs": [
      {"name": "loss", "shows": false, "how": "agree"},
      {"name": "grad_x", "shows": true, "how": "differs", "index": [1], "reference": 2.0, "production": "nan"}]})"));
  CHECK(r.verdict == Verdict::NotEquivalent);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->output == "grad_x");
  CHECK(r.counterexample->index == std::vector<long long>{1});
  CHECK(r.counterexample->referenceValue == 2.0);
  CHECK(std::isnan(r.counterexample->productionValue));
}

TEST_CASE("code runs: refutations fail closed when the code cannot be run or does not answer") {
  CheckResult failed = refutedOnGraphs();
  applyCodeRuns(failed, [](const std::string &) -> std::string { throw std::runtime_error("python died"); });
  CHECK(failed.verdict == Verdict::Unknown);
  CHECK(failed.outputs[0].code == ReasonCode::CodeNotRun);
  CHECK(failed.outputs[0].reason.find("python died") != std::string::npos);

  CheckResult silent = refutedOnGraphs();
  applyCodeRuns(silent, replying(R"({"ran": true, "outputs": [{"name": "loss", "shows": true, "how": "x"}]})"));
  CHECK(silent.outputs[0].verdict == Verdict::NotEquivalent);
  CHECK(silent.outputs[1].verdict == Verdict::Unknown);  // not answered: not confirmed

  CheckResult garbage = refutedOnGraphs();
  applyCodeRuns(garbage, replying("not json"));
  CHECK(garbage.verdict == Verdict::Unknown);
}

TEST_CASE("code runs: nothing runs without a runner; what the code's runs refuted stays refuted") {
  CheckResult r = refutedOnGraphs();
  applyCodeRuns(r, CodeRunner());
  CHECK(r.verdict == Verdict::NotEquivalent);

  CheckResult byRunning = refutedOnGraphs();
  for (OutputResult &o : byRunning.outputs) {
    o.code = ReasonCode::RefutedByRunning;
    o.reason = reasons::kRefutedByRunning;
  }
  // The graphs' counterexample is run for them too, so that their reason can say it reproduced;
  // a reply that shows nothing (here: none at all) takes nothing back (Note [Verdict table]).
  bool ran = false;
  applyCodeRuns(byRunning, [&ran](const std::string &) {
    ran = true;
    return std::string("{}");
  });
  CHECK(ran);
  CHECK(byRunning.verdict == Verdict::NotEquivalent);
  for (const OutputResult &o : byRunning.outputs) CHECK(o.code == ReasonCode::RefutedByRunning);
}
