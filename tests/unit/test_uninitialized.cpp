// Note [Uninitialized memory] (src/eval/concrete.cpp): what the evaluator computes from an
// uninitialized buffer (or around an element with no specified value) is exact whatever the
// buffer holds, or fails.
#include <doctest/doctest.h>

#include "ir/op_registry.h"
#include "ir/text_format.h"
#include "src/eval/concrete.h"

using namespace torchtv;

namespace {

std::vector<eval::EvalTensor> inputsOf(const Graph &g) {
  std::vector<eval::EvalTensor> in;
  for (const Value *v : g.inputs()) {
    eval::EvalTensor t{v->type, {}};
    for (int64_t k = 0; k < *numel(v->type.shape); ++k) t.values.push_back(0.25L * static_cast<long double>(k + 1));
    in.push_back(t);
  }
  return in;
}

}  // namespace

TEST_CASE("empty ops are uninitialized, and random") {
  for (const char *op : {"aten::empty.memory_format", "aten::empty_like", "aten::new_empty"}) {
    CHECK(opProps(op).uninitialized);
    CHECK(opProps(op).random);
  }
  CHECK_FALSE(opProps("aten::zeros_like").uninitialized);
}

TEST_CASE("a result that overwrites uninitialized memory evaluates; one that reads it does not") {
  Module m = parseModule(R"(graph @overwrites(%x: f32[2,3], %y: f32[3,2], %s: f32[2]) -> (f32[2,2], f32[2,2], f32[2,2]) {
  %e: f32[2,2] = aten::new_empty(%x) {size=[2, 2]}
  %mm: f32[2,2] = aten::addmm(%e, %x, %y) {beta=0, alpha=2}
  %c: f32[2,2] = aten::copy(%e, %s)
  %f: f32[2,2] = aten::fill.Scalar(%e) {value=1.5}
  return %mm, %c, %f
}
graph @reads(%x: f32[2,2]) -> (f32[2,2]) {
  %e: f32[2,2] = aten::empty_like(%x)
  %y: f32[2,2] = aten::add.Tensor(%e, %x)
  return %y
}
graph @returns(%x: f32[2,2]) -> (f32[2,2]) {
  %e: f32[2,2] = aten::empty_like(%x)
  return %e
}
)", "t.tvir");
  const Graph &g = *m.find("overwrites");
  auto out = eval::evaluateGraph(g, inputsOf(g), eval::Precision::Native);
  // x = [[.25 .5 .75] [1 1.25 1.5]], y = [[.25 .5] [.75 1] [1.25 1.5]]: 2 * (x @ y)[0][0] = 2 * 1.375
  CHECK(out[0].values[0] == doctest::Approx(2.75));
  CHECK(out[1].values == std::vector<long double>{0.25L, 0.5L, 0.25L, 0.5L});  // s broadcast to each row
  CHECK(out[2].values == std::vector<long double>(4, 1.5L));
  const Graph &r = *m.find("reads"), &e = *m.find("returns");
  CHECK_THROWS_AS(eval::evaluateGraph(r, inputsOf(r), eval::Precision::Native), eval::EvalError);
  CHECK_THROWS_AS(eval::evaluateGraph(e, inputsOf(e), eval::Precision::Native), eval::EvalError);
  // evaluateWhatCan keeps what does not read it.
  auto what = eval::evaluateWhatCan(r, inputsOf(r), eval::Precision::Native);
  CHECK(what.count(r.inputs()[0]) == 1);
  CHECK(what.count(r.outputs()[0]) == 0);
}

TEST_CASE("index_put with accumulate=false: one write per element evaluates; two writes give no value") {
  // Note [index_put semantics] (src/sem/index_ops.cpp): an element two positions write is
  // unspecified, which the evaluator treats as uninitialized memory, never as a last or first write.
  Module m = parseModule(R"(graph @put(%x: f32[5], %i: i64[3], %v: f32[3]) -> (f32[5]) {
  %r: f32[5] = aten::index_put(%x, %i, %v) {accumulate=false}
  return %r
}
)", "t.tvir");
  const Graph &g = *m.find("put");
  auto inputs = [&](std::vector<long double> positions) {
    std::vector<eval::EvalTensor> in = inputsOf(g);  // x = [.25 .5 .75 1 1.25], v = [.25 .5 .75]
    in[1].values = std::move(positions);
    return in;
  };
  auto out = eval::evaluateGraph(g, inputs({4, 0, -2}), eval::Precision::Native);  // -2 is position 3
  CHECK(out[0].values == std::vector<long double>{0.5L, 0.5L, 0.75L, 0.75L, 0.25L});
  CHECK_THROWS_AS(eval::evaluateGraph(g, inputs({1, 3, 1}), eval::Precision::Native), eval::EvalError);
  CHECK_THROWS_AS(eval::evaluateGraph(g, inputs({1, 3, -4}), eval::Precision::Native), eval::EvalError);
  CHECK(eval::evaluateWhatCan(g, inputs({2, 2, 0}), eval::Precision::Native).count(g.outputs()[0]) == 0);
}
