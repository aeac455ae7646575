// Positions as values in terms (Note [Positions as values in terms] in src/sem/term.h) and reads
// at data-dependent positions past the dispatch's 128 positions (Note [Reads at data-dependent
// positions] in src/sem/index_ops.cpp): value(c) in the evaluator, the normal form and Z3 at both
// levels; the range rules that make a one-hot and an eq/arange mask one term (Note [Terms with
// indices in range] in src/sem/index_ranges.h).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ir/text_format.h"
#include "src/eval/concrete.h"
#include "src/sem/index_ranges.h"
#include "src/sem/normal_form.h"
#include "src/smt/query.h"

using namespace torchtv;
using sem::IndexExpr;
using sem::TermPtr;
using sem::TOp;

namespace {

eval::EvalTensor tensor(const Value *v, std::vector<long double> values) { return eval::EvalTensor{v->type, std::move(values)}; }

smt::Answer prove(sem::TermContext &tc, TermPtr a, TermPtr b, smt::Arith arith) {
  return smt::proveEqual(tc, a, b, arith, smt::QueryOptions{}).answer;
}

}  // namespace

TEST_CASE("value(c): a constant position is the integer constant, a symbolic one renames with its variables") {
  sem::TermContext tc;
  int i = tc.vars.fresh(200, "i"), j = tc.vars.fresh(200, "j");
  CHECK(tc.indexValue(IndexExpr::constant(7), DType::I64) == tc.intConstant(7, DType::I64));
  TermPtr vi = tc.indexValue(IndexExpr::var(i) * 2 + 1, DType::I64);
  CHECK(vi->op == TOp::IndexValue);
  CHECK(vi->freeVars == std::vector<int>{i});
  CHECK(tc.substitute(vi, i, IndexExpr::var(j)) == tc.indexValue(IndexExpr::var(j) * 2 + 1, DType::I64));
  CHECK(tc.substitute(vi, i, IndexExpr::constant(3)) == tc.intConstant(7, DType::I64));
  CHECK(tc.str(vi).rfind("value(", 0) == 0);
  CHECK_THROWS_AS(tc.indexValue(IndexExpr::var(i), DType::F32), std::logic_error);
}

TEST_CASE("value(c) in Z3, at both levels: the position as an integer, wrapped to the dtype") {
  // 200 positions go through int2bv, 8 through the select over them (Encoder::indexValue).
  for (int64_t extent : {200, 8})
  for (smt::Arith arith : {smt::Arith::Ieee, smt::Arith::Real}) {
    CAPTURE(extent);
    sem::TermContext tc;
    int i = tc.vars.fresh(extent, "i");
    TermPtr value = tc.indexValue(IndexExpr::var(i), DType::I64);
    auto isThree = [&](TermPtr x) { return tc.make(TOp::Eq, {x, tc.intConstant(3, DType::I64)}, DType::I64); };
    // value(i) == 3 is the index condition i == 3; value(i + 1) == 3 is not.
    CHECK(prove(tc, isThree(value), tc.indexCmp(sem::IndexCmpKind::Eq, IndexExpr::var(i), IndexExpr::constant(3)), arith) ==
          smt::Answer::Equal);
    TermPtr next = tc.indexValue(IndexExpr::var(i) + 1, DType::I64);
    CHECK(prove(tc, isThree(next), tc.indexCmp(sem::IndexCmpKind::Eq, IndexExpr::var(i), IndexExpr::constant(3)), arith) ==
          smt::Answer::Differ);
    // i8 wraps: value(i) for i = 130 is -126, so value(i) < 0 is i >= 128.
    TermPtr narrow = tc.indexValue(IndexExpr::var(i), DType::I8);
    TermPtr negative = tc.make(TOp::Lt, {narrow, tc.intConstant(0, DType::I8)}, DType::I8);
    CHECK(prove(tc, negative, tc.indexCmp(sem::IndexCmpKind::Le, IndexExpr::constant(128), IndexExpr::var(i)), arith) ==
          smt::Answer::Equal);
  }
}

TEST_CASE("value(c) in the normal form: an atom keyed by its position") {
  sem::TermContext tc;
  int i = tc.vars.fresh(200, "i");
  TermPtr y = tc.read(0, {IndexExpr::constant(0)}, DType::I64);
  auto hot = [&](const IndexExpr &c) {
    return tc.cast(tc.make(TOp::Eq, {y, tc.indexValue(c, DType::I64)}, DType::I64), DType::F32);
  };
  sem::NormalForm nf(tc);
  CHECK(nf.key(hot(IndexExpr::var(i))) == nf.key(hot(IndexExpr::var(i))));
  CHECK(nf.key(hot(IndexExpr::var(i))) != nf.key(hot(IndexExpr::var(i) + 1)));
  // Sums over the position rename it with their binder: the same row sum written twice.
  auto rowSum = [&] {
    int k = tc.vars.fresh(200, "k");
    return tc.reduce(TOp::Sum, k, hot(IndexExpr::var(k)), DType::F32, "test");
  };
  CHECK(nf.key(rowSum()) == nf.key(rowSum()));
}

TEST_CASE("with the index in range, a one-hot is its compare with value(c), and a one-hot row sums to its value") {
  sem::TermContext tc;
  int c = tc.vars.fresh(200, "c");
  TermPtr y = tc.read(0, {IndexExpr::constant(0)}, DType::I64);
  TermPtr same = tc.make(TOp::Eq, {y, tc.indexValue(IndexExpr::var(c), DType::I64)}, DType::I64);
  auto inRange = [&](int64_t k) {
    return tc.make(TOp::And, {tc.make(TOp::Ge, {y, tc.intConstant(0, DType::I64)}, DType::I64),
                              tc.make(TOp::Lt, {y, tc.intConstant(k, DType::I64)}, DType::I64)},
                   DType::Bool);
  };
  TermPtr raise = tc.make(TOp::Raise, {y}, DType::Bool);
  TermPtr hot = tc.select(inRange(200), same, raise);
  CHECK(sem::assumeIndexRanges(tc, hot, {{0, {200}}}, false) == same);
  CHECK(sem::assumeIndexRanges(tc, hot, {{0, {100}}}, false) == same);  // a smaller range too
  CHECK(sem::assumeIndexRanges(tc, hot, {{0, {300}}}, false) != same);  // y = 250 raises
  CHECK(sem::assumeIndexRanges(tc, hot, {}, false) == hot);

  // sum_j select(y == value(j), a, 0) = a: over the reals; in IEEE only for a pick (zeros -0).
  TermPtr a = tc.read(1, {IndexExpr::constant(0)}, DType::F32);
  auto row = [&](TOp op, double zero, int64_t extent) {
    int j = tc.vars.fresh(extent, "j");
    TermPtr at = tc.make(TOp::Eq, {y, tc.indexValue(IndexExpr::var(j), DType::I64)}, DType::I64);
    return tc.reduce(op, j, tc.select(at, a, tc.constant(zero, DType::F32)), DType::F32, "test");
  };
  CHECK(sem::assumeIndexRanges(tc, row(TOp::Sum, 0.0, 200), {{0, {200}}}, true) == a);
  CHECK(sem::assumeIndexRanges(tc, row(TOp::Sum, 0.0, 200), {{0, {200}}}, false) != a);  // a = -0 sums to +0
  CHECK(sem::assumeIndexRanges(tc, row(TOp::Pick, -0.0, 200), {{0, {200}}}, false) == a);
  CHECK(sem::assumeIndexRanges(tc, row(TOp::Sum, 0.0, 100), {{0, {200}}}, true) != a);  // y = 150: no summand
  CHECK(sem::assumeIndexRanges(tc, row(TOp::Sum, 0.0, 200), {}, true) != a);           // no range assumed
  // Note [Reference kernel domains]: with ignore_index -100 in the range as well, the range test
  // and the raise stay (y = -100 reaches them), a test against -100 is kept, and the row sums to a
  // except at -100, where no summand is a.
  sem::IndexRanges withIgnored{{0, sem::IndexRange{200, {-100}}}};
  CHECK(sem::assumeIndexRanges(tc, hot, withIgnored, false) != same);
  TermPtr isIgnored = tc.make(TOp::Eq, {y, tc.intConstant(-100, DType::I64)}, DType::I64);
  CHECK(sem::assumeIndexRanges(tc, isIgnored, withIgnored, false) == isIgnored);
  CHECK(sem::assumeIndexRanges(tc, isIgnored, {{0, {200}}}, false)->op == TOp::Const);
  CHECK(sem::assumeIndexRanges(tc, row(TOp::Sum, 0.0, 200), withIgnored, true) ==
        tc.select(isIgnored, tc.constant(0.0, DType::F32), a));
  // An i8 value(j) wraps past 128: over 300 positions, v == value(j) holds at j and j + 256.
  {
    TermPtr y8 = tc.read(3, {IndexExpr::constant(0)}, DType::I8);
    int j8 = tc.vars.fresh(300, "j");
    TermPtr at8 = tc.make(TOp::Eq, {y8, tc.indexValue(IndexExpr::var(j8), DType::I8)}, DType::I8);
    TermPtr row8 = tc.reduce(TOp::Sum, j8, tc.select(at8, a, tc.constant(0, DType::F32)), DType::F32, "test");
    CHECK(sem::assumeIndexRanges(tc, row8, {{3, {100}}}, true) != a);
  }
  // A summand that depends on the position is no one-hot row's value.
  int j = tc.vars.fresh(200, "j");
  TermPtr at = tc.make(TOp::Eq, {y, tc.indexValue(IndexExpr::var(j), DType::I64)}, DType::I64);
  TermPtr xj = tc.read(2, {IndexExpr::var(j)}, DType::F32);
  TermPtr gather = tc.reduce(TOp::Sum, j, tc.select(at, xj, tc.constant(0, DType::F32)), DType::F32, "test");
  CHECK(sem::assumeIndexRanges(tc, gather, {{0, {200}}}, true)->op == TOp::Sum);
}

TEST_CASE("the evaluator: arange is value(start + i * step), one_hot and gather past 128 positions") {
  Module m = parseModule(R"(graph @g(%x: f32[2,200], %y: i64[2]) -> (i64[5], i64[2,200], f32[2,1]) {
  %a: i64[5] = aten::arange.start_step() {start=3, end=13, step=2}
  %oh: i64[2,200] = aten::one_hot(%y) {num_classes=200}
  %u: i64[2,1] = aten::unsqueeze(%y) {dim=1}
  %gx: f32[2,1] = aten::gather(%x, %u) {dim=1, sparse_grad=false}
  return %a, %oh, %gx
}
)",
                         "values.tvir");
  const Graph &g = *m.find("g");
  std::vector<long double> x(400);
  for (size_t k = 0; k < x.size(); ++k) x[k] = 0.5L * static_cast<long double>(k);
  x[199] = -0.0L;  // row 0, column 199: a pick returns its one summand as it is, -0 included
  std::vector<eval::EvalTensor> in{tensor(g.inputs()[0], x), tensor(g.inputs()[1], {199, 3})};
  std::vector<eval::EvalTensor> out = eval::evaluateGraph(g, in, eval::Precision::Native);
  CHECK(out[0].values == std::vector<long double>{3, 5, 7, 9, 11});
  for (size_t k = 0; k < 400; ++k) CHECK(out[1].values[k] == ((k == 199 || k == 203) ? 1 : 0));
  CHECK(eval::bitEqual(out[2].values[0], -0.0L));
  CHECK(out[2].values[1] == 0.5L * 203);
  // Out of range, one_hot and gather raise (Note [Data-dependent indices]).
  in[1] = tensor(g.inputs()[1], {200, 0});
  CHECK_THROWS_AS(eval::evaluateGraph(g, in, eval::Precision::Native), eval::EvalError);
  in[1] = tensor(g.inputs()[1], {0, -1});
  CHECK_THROWS_AS(eval::evaluateGraph(g, in, eval::Precision::Native), eval::EvalError);
}
