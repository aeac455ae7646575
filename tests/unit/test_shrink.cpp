#include <doctest/doctest.h>

#include "ir/text_format.h"
#include "src/verify/refute.h"
#include "src/verify/shrink.h"

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

TEST_CASE("a refuting input is shrunk while it still refutes") {
  Module m = parseModule(kPair, "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  auto confirmer = makeEvaluatorConfirmer();
  std::vector<Refutation> found = refuteByRandomInputs(ref, prod, {0}, *confirmer);
  REQUIRE(found.size() == 1);
  Refutation *r = &found.front();
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
  // Nothing refutes equal graphs: nothing is shrunk, and the input stays as it was.
  Refutation same = *r;
  CHECK(shrinkRefutation(ref, ref, same, *confirmer).empty());
  CHECK(same.inputs[0].values == r->inputs[0].values);
}

TEST_CASE("inputs the difference does not need are set to zero whole") {
  // Production adds 0.5 * w2 to the reference's x * w; w2 alone refutes.
  Module m = parseModule(R"(graph @reference(%x: f32[8], %w: f32[8], %w2: f32[8]) -> (f32[8]) {
  %y: f32[8] = aten::mul.Tensor(%x, %w) loc("ref.py":2)
  return %y
}
graph @production(%x: f32[8], %w: f32[8], %w2: f32[8]) -> (f32[8]) {
  %y: f32[8] = aten::mul.Tensor(%x, %w) loc("prod.py":2)
  %t: f32[8] = aten::mul.Scalar(%w2) {other=0.5} loc("prod.py":3)
  %o: f32[8] = aten::add.Tensor(%y, %t) loc("prod.py":4)
  return %o
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  auto confirmer = makeEvaluatorConfirmer();
  std::vector<Refutation> found = refuteByRandomInputs(ref, prod, {0}, *confirmer);
  REQUIRE(found.size() == 1);
  std::string what = shrinkRefutation(ref, prod, found.front(), *confirmer);
  CHECK(what.find("(2 whole inputs)") != std::string::npos);
  for (size_t i : {0, 1})
    for (long double v : found.front().inputs[i].values) CHECK(v == 0);
  REQUIRE(confirmer->confirm(ref, prod, found.front().inputs, {0}));
}

TEST_CASE("integer inputs are shrunk too") {
  // int8 a + 1 > a is false only where a is 127: every other entry is set to zero.
  Module m = parseModule(R"(graph @reference(%a: i8[8]) -> (bool[8]) {
  %y: bool[8] = aten::ge.Tensor(%a, %a)
  return %y
}
graph @production(%a: i8[8]) -> (bool[8]) {
  %s: i8[8] = aten::add.Scalar(%a) {other=1}
  %y: bool[8] = aten::gt.Tensor(%s, %a)
  return %y
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  auto confirmer = makeEvaluatorConfirmer();
  Refutation r;
  r.inputs = {{ref.inputs()[0]->type, {3, 127, -5, 9, 127, 1, -128, 2}}};
  auto d = confirmer->confirm(ref, prod, r.inputs, {0});
  REQUIRE(d);
  r.difference = *d;
  CHECK(shrinkRefutation(ref, prod, r, *confirmer).find("shrunk: ") == 0);
  size_t nonzero = 0;
  for (long double v : r.inputs[0].values) nonzero += v != 0;
  CHECK(nonzero == 1);
  CHECK(r.inputs[0].values[static_cast<size_t>(r.difference.index.at(0))] == 127);
}
