#include <doctest/doctest.h>

#include "ir/text_format.h"
#include "src/verify/localize.h"

using namespace torchtv;

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

TEST_CASE("the first differing intermediate of a wrong eps is the eps addition") {
  Module m = parseModule(R"(graph @reference(%x: f32[2,4]) -> (f32[2,4]) {
  %sq: f32[2,4] = aten::mul.Tensor(%x, %x) loc("ref.py":3)
  %ms: f32[2,1] = aten::mean.dim(%sq) {dim=[1], keepdim=true} loc("ref.py":4)
  %eps: f32[2,1] = aten::add.Scalar(%ms) {other=1e-05} loc("ref.py":5)
  %r: f32[2,1] = aten::rsqrt(%eps) loc("ref.py":6)
  %y: f32[2,4] = aten::mul.Tensor(%x, %r) loc("ref.py":7)
  return %y
}
graph @production(%x: f32[2,4]) -> (f32[2,4]) {
  %sq: f32[2,4] = aten::mul.Tensor(%x, %x) loc("prod.py":3)
  %ms: f32[2,1] = aten::mean.dim(%sq) {dim=[1], keepdim=true} loc("prod.py":4)
  %eps: f32[2,1] = aten::add.Scalar(%ms) {other=1e-06} loc("prod.py":5)
  %r: f32[2,1] = aten::rsqrt(%eps) loc("prod.py":6)
  %y: f32[2,4] = aten::mul.Tensor(%x, %r) loc("prod.py":7)
  return %y
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  std::vector<eval::EvalTensor> inputs = {{ref.inputs()[0]->type, std::vector<long double>(8, 3.0L)}};
  std::optional<IntermediateDifference> d = localizeDifference(ref, prod, inputs, 0);
  REQUIRE(d);
  CHECK(d->production.loc == "prod.py:5");
  CHECK(d->reference.loc == "ref.py:5");
  CHECK(d->referenceValue - d->productionValue == doctest::Approx(9e-6).epsilon(1e-3));
  // Equal graphs have none.
  CHECK_FALSE(localizeDifference(ref, ref, inputs, 0));
}

TEST_CASE("a reduction over the wrong dim is localized with its shape difference") {
  // Production sums y over rows (f32[1,3]) where the reference sums over columns (f32[2,1]);
  // no reference value has production's type.
  Module m = parseModule(R"(graph @reference(%x: f32[2,3], %y: f32[2,3]) -> (f32[2,3]) {
  %s: f32[2,1] = aten::sum.dim_IntList(%y) {dim=[1], keepdim=true} loc("ref.py":2)
  %o: f32[2,3] = aten::mul.Tensor(%x, %s) loc("ref.py":3)
  return %o
}
graph @production(%x: f32[2,3], %y: f32[2,3]) -> (f32[2,3]) {
  %s: f32[1,3] = aten::sum.dim_IntList(%y) {dim=[0], keepdim=true} loc("prod.py":2)
  %o: f32[2,3] = aten::mul.Tensor(%x, %s) loc("prod.py":3)
  return %o
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  std::vector<eval::EvalTensor> inputs = {{ref.inputs()[0]->type, {1, 2, 3, 4, 5, 6}},
                                          {ref.inputs()[1]->type, {1, 0, 2, 0, 3, 1}}};
  std::optional<IntermediateDifference> d = localizeDifference(ref, prod, inputs, 0);
  REQUIRE(d);
  CHECK(d->production.loc == "prod.py:2");
  CHECK(d->reference.loc == "ref.py:2");
  CHECK(d->typeDifference == "shape differs: production f32[1,3], reference f32[2,1]");
}

TEST_CASE("agreeing again beyond a constant value is no re-convergence") {
  // Production's wrong constant flows into a product with a zero weight (as after shrinking):
  // what is added to that zero agrees with the reference's whatever flowed in, and the
  // departure stays the add of the wrong constant.
  Module m = parseModule(R"(graph @reference(%x: f32[4], %w: f32[4], %v: f32[4]) -> (f32[4]) {
  %a: f32[4] = aten::add.Scalar(%x) {other=1.0} loc("ref.py":2)
  %z: f32[4] = aten::mul.Tensor(%a, %w) loc("ref.py":3)
  %p: f32[4] = aten::add.Tensor(%z, %v) loc("ref.py":4)
  %o: f32[4] = aten::add.Tensor(%p, %a) loc("ref.py":5)
  return %o
}
graph @production(%x: f32[4], %w: f32[4], %v: f32[4]) -> (f32[4]) {
  %a: f32[4] = aten::add.Scalar(%x) {other=1.5} loc("prod.py":2)
  %z: f32[4] = aten::mul.Tensor(%a, %w) loc("prod.py":3)
  %p: f32[4] = aten::add.Tensor(%z, %v) loc("prod.py":4)
  %o: f32[4] = aten::add.Tensor(%p, %a) loc("prod.py":5)
  return %o
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  std::vector<eval::EvalTensor> inputs = {{ref.inputs()[0]->type, {0.5L, -1.25L, 2.0L, 3.0L}},
                                          {ref.inputs()[1]->type, {0, 0, 0, 0}},
                                          {ref.inputs()[2]->type, {1, 2, 3, 4}}};
  std::optional<IntermediateDifference> d = localizeDifference(ref, prod, inputs, 0);
  REQUIRE(d);
  CHECK(d->production.loc == "prod.py:2");
  CHECK(d->typeDifference.empty());
}

TEST_CASE("a shrunk input's zero detour gives way to where the input as found departs") {
  // Production computes 2x by a detour of another shape (x expanded to [2,4], summed) and
  // halves y (the planted bug, prod.py:4). On random inputs the detour re-converges (2x agrees)
  // and the departure is the halving; with x shrunk to zero the detour is all zeros, which
  // agree with no reference value of its type (y expanded, outside the output's cone), and it
  // is where that input departs, upstream of the bug.
  Module m = parseModule(R"(graph @reference(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %d: f32[4] = aten::mul.Scalar(%x) {other=2.0} loc("ref.py":2)
  %o: f32[4] = aten::add.Tensor(%d, %y) loc("ref.py":3)
  %e: f32[2,4] = aten::expand(%y) {size=[2,4]} loc("ref.py":4)
  return %o
}
graph @production(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %a: f32[2,4] = aten::expand(%x) {size=[2,4]} loc("prod.py":2)
  %b: f32[4] = aten::sum.dim_IntList(%a) {dim=[0]} loc("prod.py":3)
  %h: f32[4] = aten::mul.Scalar(%y) {other=0.5} loc("prod.py":4)
  %o: f32[4] = aten::add.Tensor(%b, %h) loc("prod.py":5)
  return %o
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  const TensorType &t = ref.inputs()[0]->type;
  std::vector<eval::EvalTensor> found = {{t, {0.5L, -1.25L, 2.0L, 3.0L}}, {t, {1.5L, 2.25L, -0.75L, 4.0L}}};
  std::vector<eval::EvalTensor> shrunk = {{t, {0, 0, 0, 0}}, {t, {2, 0, 0, 0}}};
  std::optional<IntermediateDifference> alone = localizeDifference(ref, prod, shrunk, 0);
  REQUIRE(alone);
  CHECK(alone->production.loc == "prod.py:2");
  std::optional<IntermediateDifference> d = localizeDifference(ref, prod, shrunk, 0, &found);
  REQUIRE(d);
  CHECK(d->production.loc == "prod.py:4");
  // The values are the shrunk input's.
  CHECK(d->productionValue == doctest::Approx(1.0));
}

TEST_CASE("where production returns a reference intermediate, the outputs are the localization") {
  // The reference guards its softmax (rows where the guard is off come out zero); production
  // returns the softmax itself: every production value agrees with a reference value.
  Module m = parseModule(R"(graph @reference(%x: f32[2,4], %keep: bool[2,1]) -> (f32[2,4]) {
  %p: f32[2,4] = aten::_softmax(%x) {dim=-1, half_to_float=false} loc("ref.py":2)
  %z: f32[2,4] = aten::zeros_like(%p) loc("ref.py":3)
  %y: f32[2,4] = aten::where.self(%keep, %p, %z) loc("ref.py":4)
  return %y
}
graph @production(%x: f32[2,4], %keep: bool[2,1]) -> (f32[2,4]) {
  %y: f32[2,4] = aten::_softmax(%x) {dim=-1, half_to_float=false} loc("prod.py":2)
  return %y
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  std::vector<eval::EvalTensor> inputs = {{ref.inputs()[0]->type, {1, 2, 3, 4, 0, 0, 0, 0}},
                                          {ref.inputs()[1]->type, {1, 0}}};
  std::optional<IntermediateDifference> d = localizeDifference(ref, prod, inputs, 0);
  REQUIRE(d);
  CHECK(d->production.loc == "prod.py:2");
  CHECK(d->reference.loc == "ref.py:4");
  CHECK(d->index == std::vector<long long>{1, 0});
  CHECK(d->productionValue == doctest::Approx(0.25));
  CHECK(d->referenceValue == 0);
}

TEST_CASE("outputs whose types differ: an all-zero input, localized where the types first differ") {
  // Note [Localized type differences]: the first unmatched nodes when their types differ (a
  // reduction without keepdim), else the outputs (a cast after the last shared value).
  Module m = parseModule(R"(graph @reference(%x: f32[4,8]) -> (f32[4,1], f32[4]) {
  %s: f32[4,1] = aten::sum.dim_IntList(%x) {dim=[1], keepdim=true} loc("ref.py":2)
  %y: f32[4] = aten::select.int(%x) {dim=1, index=0} loc("ref.py":3)
  return %s, %y
}
graph @production(%x: f32[4,8]) -> (f32[4], f64[4]) {
  %s: f32[4] = aten::sum.dim_IntList(%x) {dim=[1]} loc("prod.py":2)
  %y: f32[4] = aten::select.int(%x) {dim=1, index=0} loc("prod.py":3)
  %z: f64[4] = aten::_to_copy(%y) {dtype=f64} loc("prod.py":4)
  return %s, %z
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  const Node *refSum = ref.nodes()[0].get(), *prodSum = prod.nodes()[0].get();
  Counterexample c = typeDifferenceCounterexample(ref, prod, 0, "output types differ", refSum, prodSum);
  REQUIRE(c.inputs.size() == 1);
  CHECK(c.inputs[0].values == std::vector<double>(32, 0.0));
  REQUIRE(c.firstDifference);
  CHECK_FALSE(c.firstDifference->hasValues);
  CHECK(c.firstDifference->production.loc == "prod.py:2");
  CHECK(c.firstDifference->reference.loc == "ref.py:2");
  CHECK(c.firstDifference->typeDifference == "shape differs: production f32[4], reference f32[4,1]");
  // Nothing earlier differs in type: the outputs.
  IntermediateDifference d = localizeTypeDifference(*ref.outputs()[1], *prod.outputs()[1], nullptr, prod.nodes()[2].get());
  CHECK(d.production.loc == "prod.py:4");
  CHECK(d.reference.loc == "ref.py:3");
  CHECK(d.typeDifference == "dtype differs: production f64[4], reference f32[4]");
}

TEST_CASE("a node with the same op and inputs as a reference node departs first") {
  // Note [Departure with a counterpart]. Production computes 2x by a detour of another shape
  // (x expanded to [2,4], summed) and scales y by 1/16 where the reference scales it by 1/4 (the
  // planted bug, prod.py:4). With x shrunk to zero the detour is all zeros, which agree with no
  // reference value of its type: the walk alone named it (prod.py:2), upstream of the bug. The
  // scale takes the same value as the reference's (y) by the same op and computes another one.
  Module m = parseModule(R"(graph @reference(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %d: f32[4] = aten::mul.Scalar(%x) {other=2.0} loc("ref.py":2)
  %s: f32[4] = aten::mul.Scalar(%y) {other=0.25} loc("ref.py":3)
  %o: f32[4] = aten::add.Tensor(%d, %s) loc("ref.py":4)
  return %o
}
graph @production(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %a: f32[2,4] = aten::expand(%x) {size=[2,4]} loc("prod.py":2)
  %b: f32[4] = aten::sum.dim_IntList(%a) {dim=[0]} loc("prod.py":3)
  %s: f32[4] = aten::mul.Scalar(%y) {other=0.0625} loc("prod.py":4)
  %o: f32[4] = aten::add.Tensor(%b, %s) loc("prod.py":5)
  return %o
}
)", "t.tvir");
  const Graph &ref = *m.find("reference"), &prod = *m.find("production");
  const TensorType &t = ref.inputs()[0]->type;
  std::vector<eval::EvalTensor> shrunk = {{t, {0, 0, 0, 0}}, {t, {2, 0, 0, 0}}};
  std::optional<IntermediateDifference> d = localizeDifference(ref, prod, shrunk, 0);
  REQUIRE(d);
  CHECK(d->production.loc == "prod.py:4");
  CHECK(d->reference.loc == "ref.py:3");
  CHECK(d->productionValue == doctest::Approx(0.125));
  CHECK(d->referenceValue == doctest::Approx(0.5));
}

TEST_CASE("a loop's nodes at one line are counted as runs of that line") {
  // Note [Runs of a line]: the third layer's scale is run 3 of 3 of its line; a line run once
  // has no count.
  Module m = parseModule(R"(graph @production(%x: f32[4]) -> (f32[4]) {
  %a: f32[4] = aten::mul.Scalar(%x) {other=0.5} loc("prod.py":13)
  %b: f32[4] = aten::mul.Scalar(%a) {other=0.5} loc("prod.py":13)
  %c: f32[4] = aten::mul.Scalar(%b) {other=0.5} loc("prod.py":13)
  %o: f32[4] = aten::neg(%c) loc("prod.py":20)
  return %o
}
)", "t.tvir");
  const Graph &g = *m.find("production");
  GraphSites sites(g);
  Site third = sites(*g.nodes()[2]);
  CHECK(third.loc == "prod.py:13");
  CHECK(third.run == 3);
  CHECK(third.runs == 3);
  Site once = sites(*g.nodes()[3]);
  CHECK(once.runs == 1);
}
