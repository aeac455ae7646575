// Note [Input domains]: which inputs random refutation draws in range or positive.
#include <doctest/doctest.h>

#include "ir/text_format.h"
#include "src/verify/input_domains.h"
#include "src/verify/refute.h"

namespace torchtv {

TEST_CASE("input domains: indices in range through views, the smallest bound, positive arguments") {
  Module m = parseModule(R"(
graph @g(%x: f32[6,3], %t: i64[6], %i: i64[2,5], %e: f32[10,4], %v: f32[6], %n: f32[6]) -> (f32[], f32[2,5,4], f32[2,5], f32[6], f32[6]) {
  %l: f32[6,3] = aten::_log_softmax(%x) {dim=1, half_to_float=false}
  %loss: f32[], %w: f32[] = aten::nll_loss_forward(%l, %t, none) {reduction=1, ignore_index=-100}
  %emb: f32[2,5,4] = aten::embedding(%e, %i)
  %flat: i64[10] = aten::view(%i) {size=[10]}
  %row: i64[1,10] = aten::unsqueeze(%flat) {dim=0}
  %g: f32[1,10] = aten::gather(%e, %row) {dim=1}
  %r: f32[6] = aten::rsqrt(%v)
  %s: f32[6] = aten::sqrt(%n)
  %z: f32[6] = aten::neg(%s)
  %g2: f32[2,5] = aten::view(%g) {size=[2,5]}
  return %loss, %emb, %g2, %r, %z
}
)", "domains.tvir");
  const Graph &g = *m.graphs.at(0);
  std::vector<InputDomain> d = inputDomains(g);
  REQUIRE(d.size() == 6);
  CHECK(!d[0].indexBound);
  CHECK(!d[0].positive);
  CHECK(d[1].indexBound == 3);           // nll_loss target: the class dim
  CHECK(d[2].indexBound == 4);           // embedding: 10 rows; gather along dim 1 of [10,4]: 4
  CHECK(!d[3].indexBound);
  CHECK(d[4].positive);                  // rsqrt's operand
  CHECK(d[5].positive);                  // sqrt's operand, though its result is negated
  CHECK(anyDomain(d));

  std::vector<eval::EvalTensor> in = randomInputs(g, kRefuteSeed, kDomainKind, &d);
  for (long double v : in[1].values) CHECK((v >= 0 && v < 3));
  for (long double v : in[2].values) CHECK((v >= 0 && v < 4));
  for (long double v : in[4].values) CHECK(v > 0);
  CHECK(std::string(inputKindName(kDomainKind)) == "indices and arguments in their domains");
}

TEST_CASE("input domains: none where nothing indexes or needs positive values") {
  Module m = parseModule(R"(
graph @g(%x: f32[4], %k: i64[4]) -> (f32[4], i64[4]) {
  %y: f32[4] = aten::exp(%x)
  %j: i64[4] = aten::add.Tensor(%k, %k) {alpha=1}
  return %y, %j
}
)", "plain.tvir");
  CHECK(!anyDomain(inputDomains(*m.graphs.at(0))));
}

}  // namespace torchtv
