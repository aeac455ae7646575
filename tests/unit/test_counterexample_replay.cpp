#include <doctest/doctest.h>

#include <cstdlib>

#include "ir/text_format.h"
#include "src/verify/counterexample_replay.h"
#include "src/verify/localize.h"
#include "src/verify/refute.h"
#include "src/verify/shrink.h"

using namespace torchtv;

namespace {
std::vector<eval::EvalTensor> inputsOf(const Graph &g, std::vector<long double> values) {
  return {eval::EvalTensor{g.inputs()[0]->type, std::move(values)}};
}
}  // namespace

TEST_CASE("a counterexample replays through LibTorch on the original graphs") {
  Module m = parseModule(R"(op my::opaque(Tensor x) -> Tensor
graph @reference(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = aten::mul.Scalar(%x) {other=2.0}
  return %y
}
graph @production(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = aten::add.Tensor(%x, %x)
  return %y
}
graph @shifted(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = aten::add.Scalar(%x) {other=1.0}
  return %y
}
graph @custom(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = my::opaque(%x)
  return %y
}
)",
                         "t.tvir");
  const Graph &ref = *m.find("reference");
  auto inputs = inputsOf(ref, {1.0L, -2.0L, 0.5L});

  ReplayOutcome differs = replayOnOriginals(ref, *m.find("shifted"), inputs, 0, {1});
  CHECK(differs.kind == ReplayOutcome::Kind::Replayed);
  CHECK(differs.index == std::vector<long long>{1});
  CHECK(differs.referenceValue == -4.0);
  CHECK(differs.productionValue == -1.0);

  // x*2 and x+x agree on every input: a claimed difference does not replay.
  ReplayOutcome same = replayOnOriginals(ref, *m.find("production"), inputs, 0, {0});
  CHECK(same.kind == ReplayOutcome::Kind::DidNotReplay);

  // LibTorch cannot run a custom op: the evaluator's confirmation stands, and says why.
  ReplayOutcome custom = replayOnOriginals(ref, *m.find("custom"), inputs, 0, {0});
  CHECK(custom.kind == ReplayOutcome::Kind::OpMissing);
  CHECK(custom.detail.find("my::opaque") != std::string::npos);
}

// Note [Replay isolation]: a crash inside LibTorch ends the replay child, not
// torchtv; the outcome names the signal and the node.
TEST_CASE("a replay that crashes is Crashed, naming the signal and the node, and the caller lives") {
  Module m = parseModule(R"(graph @reference(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = aten::mul.Scalar(%x) {other=2.0}
  return %y
}
graph @production(%x: f32[3]) -> (f32[3]) {
  %y: f32[3] = aten::add.Scalar(%x) {other=1.0}
  return %y
}
)",
                         "t.tvir");
  const Graph &ref = *m.find("reference");
  auto inputs = inputsOf(ref, {1.0L, -2.0L, 0.5L});
  setenv("TORCHTV_REPLAY_FAULT", "sigsegv", 1);
  ReplayOutcome crashed = replayOnOriginals(ref, *m.find("production"), inputs, 0, {0});
  unsetenv("TORCHTV_REPLAY_FAULT");
  CHECK(crashed.kind == ReplayOutcome::Kind::Crashed);
  CHECK(crashed.detail == "LibTorch crashed (SIGSEGV) while replaying aten::mul.Scalar (result %y) of @reference");
  // The same replay without the fault: the values come back exactly (hex floats).
  ReplayOutcome fine = replayOnOriginals(ref, *m.find("production"), inputs, 0, {1});
  CHECK(fine.kind == ReplayOutcome::Kind::Replayed);
  CHECK(fine.index == std::vector<long long>{1});
  CHECK(fine.referenceValue == -4.0);
  CHECK(fine.productionValue == -1.0);
}

TEST_CASE("an op the evaluator lacks: refuted, shrunk and localized through LibTorch") {
  // Note [Counterexamples through LibTorch]: aten::mish_backward has no semantics in torchtv's
  // evaluator; LibTorch's kernel confirms, shrinking asks it again, localization compares its values.
  Module m = parseModule(R"(graph @reference(%g: f32[2,3], %x: f32[2,3]) -> (f32[2,3]) {
  %d: f32[2,3] = aten::mish_backward(%g, %x) loc("ref.py":2)
  %o: f32[2,3] = aten::mul.Scalar(%d) {other=3.0} loc("ref.py":3)
  return %o
}
graph @production(%g: f32[2,3], %x: f32[2,3]) -> (f32[2,3]) {
  %d: f32[2,3] = aten::mish_backward(%g, %x) loc("prod.py":2)
  %e: f32[2,3] = aten::mul.Scalar(%d) {other=2.0} loc("prod.py":3)
  %o: f32[2,3] = aten::mul.Scalar(%e) {other=3.0} loc("prod.py":4)
  return %o
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  CHECK(refuteByRandomInputs(ref, prod, {0}, *makeEvaluatorConfirmer()).empty());  // the evaluator cannot
  auto confirmer = makeReplayConfirmer(ref, prod);
  std::vector<Refutation> found = refuteByRandomInputs(ref, prod, {0}, *confirmer);
  REQUIRE(found.size() == 1);
  Refutation r = found[0];
  CHECK_FALSE(shrinkRefutation(ref, prod, r, *confirmer).empty());
  CHECK(confirmer->confirm(ref, prod, r.inputs, {0}));  // the shrunk input still refutes
  std::optional<IntermediateDifference> d = localizeDifferenceByReplay(ref, prod, r.inputs, 0, &found[0].inputs);
  REQUIRE(d);
  CHECK(d->production.loc == "prod.py:3");
  CHECK(d->reference.loc == "ref.py:3");  // the reference's own value of that op (3 times, not 2)
  CHECK(3 * d->productionValue == doctest::Approx(2 * d->referenceValue));
  // Equal graphs: nothing confirmed, nothing localized.
  auto same = makeReplayConfirmer(ref, ref);
  CHECK_FALSE(same->confirm(ref, ref, found[0].inputs, {0}));
}
