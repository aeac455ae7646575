#include <doctest/doctest.h>

#include "ir/text_format.h"
#include "src/verify/localize.h"
#include "src/verify/refute.h"

using namespace torchtv;

namespace {
// RMSNorm-like: x * rsqrt(mean(x*x) + eps), then scaled; production's eps is wrong.
const char *kPair = R"(graph @reference(%x: f32[2,8], %w: f32[8]) -> (f32[2,8]) {
  %sq: f32[2,8] = aten::mul.Tensor(%x, %x) loc("ref.py":3)
  %ms: f32[2,1] = aten::mean.dim(%sq) {dim=[1], keepdim=true} loc("ref.py":4)
  %eps: f32[2,1] = aten::add.Scalar(%ms) {other=1e-05} loc("ref.py":5)
  %r: f32[2,1] = aten::rsqrt(%eps) loc("ref.py":6)
  %n: f32[2,8] = aten::mul.Tensor(%x, %r) loc("ref.py":7)
  %y: f32[2,8] = aten::mul.Tensor(%n, %w) loc("ref.py":8)
  return %y
}
graph @production(%x: f32[2,8], %w: f32[8]) -> (f32[2,8]) {
  %sq: f32[2,8] = aten::mul.Tensor(%x, %x) loc("prod.py":3)
  %ms: f32[2,1] = aten::mean.dim(%sq) {dim=[1], keepdim=true} loc("prod.py":4)
  %eps: f32[2,1] = aten::add.Scalar(%ms) {other=1e-06} loc("prod.py":5)
  %r: f32[2,1] = aten::rsqrt(%eps) loc("prod.py":6)
  %n: f32[2,8] = aten::mul.Tensor(%x, %r) loc("prod.py":7)
  %y: f32[2,8] = aten::mul.Tensor(%n, %w) loc("prod.py":8)
  return %y
}
)";
}  // namespace

TEST_CASE("a refuting input is shrunk, and the first differing intermediate is the wrong eps") {
  Module m = parseModule(kPair, "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  auto confirmer = makeEvaluatorConfirmer();
  std::optional<Refutation> r = refuteByRandomInputs(ref, prod, {0}, *confirmer);
  REQUIRE(r);
  size_t nonzeroBefore = 0;
  for (const auto &t : r->inputs)
    for (long double v : t.values) nonzeroBefore += v != 0;

  std::string what = shrinkRefutation(ref, prod, *r, *confirmer);
  size_t nonzeroAfter = 0;
  for (const auto &t : r->inputs)
    for (long double v : t.values) nonzeroAfter += v != 0;
  CHECK(nonzeroAfter < nonzeroBefore);
  CHECK(what.find("shrunk: ") == 0);
  // The shrunk input still refutes, and the difference it carries is the one confirmed on it.
  auto again = confirmer->confirm(ref, prod, r->inputs, {0});
  REQUIRE(again);
  CHECK(again->index == r->difference.index);

  std::optional<IntermediateDifference> d = localizeDifference(ref, prod, r->inputs, 0);
  REQUIRE(d);
  CHECK(d->production.value == "eps");
  CHECK(d->production.loc == "prod.py:5");
  CHECK(d->reference.value == "eps");
  CHECK(d->referenceValue != d->productionValue);
}

TEST_CASE("equal graphs have no differing intermediate") {
  Module m = parseModule(kPair, "t.tvir");
  const Graph &ref = *m.find("reference");
  std::vector<eval::EvalTensor> inputs = {{ref.inputs()[0]->type, std::vector<long double>(16, 1.5L)},
                                          {ref.inputs()[1]->type, std::vector<long double>(8, 2.0L)}};
  CHECK_FALSE(localizeDifference(ref, ref, inputs, 0));
}

TEST_CASE("a detour that re-converges is not where production departs") {
  // Production computes 2x as 3x - x (3x: a value the reference never has), then adds the wrong
  // constant: the departure is the add, not the detour.
  Module m = parseModule(R"(graph @reference(%x: f32[4]) -> (f32[4]) {
  %d: f32[4] = aten::mul.Scalar(%x) {other=2.0} loc("ref.py":2)
  %o: f32[4] = aten::add.Scalar(%d) {other=1.0} loc("ref.py":3)
  return %o
}
graph @production(%x: f32[4]) -> (f32[4]) {
  %a: f32[4] = aten::mul.Scalar(%x) {other=3.0} loc("prod.py":2)
  %b: f32[4] = aten::sub.Tensor(%a, %x) loc("prod.py":3)
  %o: f32[4] = aten::add.Scalar(%b) {other=1.5} loc("prod.py":4)
  return %o
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  std::vector<eval::EvalTensor> inputs = {{ref.inputs()[0]->type, {0.5L, -1.25L, 2.0L, 3.0L}}};
  std::optional<IntermediateDifference> d = localizeDifference(ref, prod, inputs, 0);
  REQUIRE(d);
  CHECK(d->production.loc == "prod.py:4");
  CHECK(d->productionValue - d->referenceValue == doctest::Approx(0.5));
}
