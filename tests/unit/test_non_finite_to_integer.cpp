// Note [Non-finite floats converted to integers] (src/eval/concrete.h): the evaluator refuses
// to convert a NaN or an infinity to an integer, except where the cut search asks for the
// type's smallest value (its evaluation only proposes candidates).
#include <doctest/doctest.h>

#include <limits>

#include "ir/text_format.h"
#include "src/eval/concrete.h"

using namespace torchtv;

TEST_CASE("a non-finite float converted to an integer: refused, or the smallest value when asked") {
  // T5's relative-position buckets: log(0) = -inf, converted, then dropped by a where.
  Module m = parseModule(R"(graph @buckets(%x: f32[3]) -> (i64[3]) {
  %l: f32[3] = aten::log(%x)
  %i: i64[3] = aten::_to_copy(%l) {dtype=i64}
  return %i
}
)", "t.tvir");
  const Graph &g = *m.find("buckets");
  eval::EvalTensor x{g.inputs()[0]->type, {0.0L, 1.0L, 8.0L}};
  auto refused = eval::evaluateWhatCan(g, {x}, eval::Precision::Wide);
  CHECK(refused.count(g.outputs()[0]) == 0);
  auto smallest = eval::evaluateWhatCan(g, {x}, eval::Precision::Wide, eval::NonFiniteToInteger::Smallest);
  REQUIRE(smallest.count(g.outputs()[0]) == 1);
  const auto &values = smallest.at(g.outputs()[0]).values;
  CHECK(values[0] == static_cast<long double>(std::numeric_limits<int64_t>::min()));
  CHECK(values[1] == 0);
  CHECK(values[2] == 2);  // trunc(log 8)
}
