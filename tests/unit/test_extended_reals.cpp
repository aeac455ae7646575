// Extended reals at level real (Note [Extended reals at level real] in src/smt/extended_real.h):
// Z3 over terms that hold -inf, each identity checked with its false twin.
#include <doctest/doctest.h>

#include <cmath>

#include "src/sem/term.h"
#include "src/smt/query.h"

using namespace torchtv;
using sem::IndexExpr;
using sem::TermPtr;
using sem::TOp;

namespace {

smt::QueryResult proveReal(sem::TermContext &tc, TermPtr a, TermPtr b) {
  return smt::proveEqual(tc, a, b, smt::Arith::Real, smt::QueryOptions{});
}

struct Terms {
  sem::TermContext tc;
  TermPtr x = tc.read(0, {IndexExpr::constant(0)}, DType::F32);
  TermPtr y = tc.read(0, {IndexExpr::constant(1)}, DType::F32);
  TermPtr c = tc.read(1, {IndexExpr::constant(0)}, DType::Bool);
  TermPtr negInf = tc.constant(-INFINITY, DType::F32);
  TermPtr zero = tc.constant(0, DType::F32);
  TermPtr f(TOp op, std::vector<TermPtr> args) { return tc.make(op, std::move(args), DType::F32); }
  TermPtr nan() { return tc.constant(NAN, DType::F32); }
};

}  // namespace

TEST_CASE("extended reals: exp(-inf) = 0, so a -inf mask before exp is a 0 mask after it") {
  Terms t;
  TermPtr masked = t.f(TOp::Exp, {t.tc.select(t.c, t.negInf, t.x)});
  CHECK(proveReal(t.tc, masked, t.tc.select(t.c, t.zero, t.f(TOp::Exp, {t.x}))).answer == smt::Answer::Equal);
  // The mask inverted: a model, with the masked side -inf's exp (0) against exp(x).
  auto r = proveReal(t.tc, masked, t.tc.select(t.c, t.f(TOp::Exp, {t.x}), t.zero));
  CHECK(r.answer == smt::Answer::Differ);
}

TEST_CASE("extended reals: -inf + x = -inf, -inf - -inf is NaN, -inf * 0 is NaN, max(-inf, x) = x") {
  Terms t;
  CHECK(proveReal(t.tc, t.f(TOp::Add, {t.negInf, t.x}), t.negInf).answer == smt::Answer::Equal);
  CHECK(proveReal(t.tc, t.f(TOp::Sub, {t.negInf, t.negInf}), t.nan()).answer == smt::Answer::Equal);
  CHECK(proveReal(t.tc, t.f(TOp::Sub, {t.negInf, t.negInf}), t.zero).answer == smt::Answer::Differ);
  CHECK(proveReal(t.tc, t.f(TOp::Mul, {t.negInf, t.zero}), t.nan()).answer == smt::Answer::Equal);
  // -inf * x is -inf or +inf by x's sign, NaN at 0: not always -inf.
  auto r = proveReal(t.tc, t.f(TOp::Mul, {t.negInf, t.x}), t.negInf);
  CHECK(r.answer == smt::Answer::Differ);
  CHECK(proveReal(t.tc, t.f(TOp::Maximum, {t.negInf, t.x}), t.x).answer == smt::Answer::Equal);
  CHECK(proveReal(t.tc, t.f(TOp::Minimum, {t.negInf, t.x}), t.negInf).answer == smt::Answer::Equal);
  // NaN wins in ATen's maximum.
  CHECK(proveReal(t.tc, t.f(TOp::Maximum, {t.nan(), t.x}), t.nan()).answer == smt::Answer::Equal);
  // Comparisons: -inf < x always, NaN compares false.
  CHECK(proveReal(t.tc, t.tc.make(TOp::Lt, {t.negInf, t.x}, DType::F32), t.tc.boolConstant(true)).answer ==
        smt::Answer::Equal);
  CHECK(proveReal(t.tc, t.tc.make(TOp::Eq, {t.nan(), t.nan()}, DType::F32), t.tc.boolConstant(false)).answer ==
        smt::Answer::Equal);
  CHECK(proveReal(t.tc, t.tc.make(TOp::IsNan, {t.f(TOp::Sub, {t.negInf, t.negInf})}, DType::F32),
                  t.tc.boolConstant(true)).answer == smt::Answer::Equal);
  // sigmoid through its formula: sigmoid(-inf) = 1 / (1 + exp(inf)) = 0.
  CHECK(proveReal(t.tc, t.f(TOp::Sigmoid, {t.negInf}), t.zero).answer == smt::Answer::Equal);
}

TEST_CASE("extended reals: a softmax row masked everywhere is NaN, not 0") {
  // softmax over 3 elements, each select(c_k, -inf, x_k), against the same with its NaN written
  // as 0 (a guarded softmax): they differ exactly on rows with every c_k true.
  Terms t;
  int k = t.tc.vars.fresh(3, "k");
  auto element = [&](const IndexExpr &at) {
    return t.tc.select(t.tc.read(1, {at}, DType::Bool), t.negInf, t.tc.read(0, {at}, DType::F32));
  };
  TermPtr e0 = element(IndexExpr::constant(0));
  TermPtr mx = t.tc.reduce(TOp::RMax, k, element(IndexExpr::var(k)), DType::F32, "aten::amax");
  int j = t.tc.vars.fresh(3, "j");
  TermPtr sum = t.tc.reduce(TOp::Sum, j, t.f(TOp::Exp, {t.f(TOp::Sub, {element(IndexExpr::var(j)), mx})}), DType::F32,
                            "aten::sum");
  TermPtr softmax = t.f(TOp::Div, {t.f(TOp::Exp, {t.f(TOp::Sub, {e0, mx})}), sum});
  TermPtr guarded = t.tc.select(t.tc.make(TOp::IsNan, {softmax}, DType::F32), t.zero, softmax);
  smt::QueryResult r = proveReal(t.tc, softmax, guarded);
  CAPTURE(r.detail);
  REQUIRE(r.answer == smt::Answer::Differ);
  CHECK(std::isnan(r.lhs));
  CHECK(r.rhs == 0);
  // The row max as a reduction against maximum written pairwise: equal with -inf entries too,
  // and so is the softmax built on each.
  TermPtr pairwise = t.f(TOp::Maximum, {t.f(TOp::Maximum, {e0, element(IndexExpr::constant(1))}),
                                        element(IndexExpr::constant(2))});
  CHECK(proveReal(t.tc, mx, pairwise).answer == smt::Answer::Equal);
  TermPtr other = t.f(TOp::Div, {t.f(TOp::Exp, {t.f(TOp::Sub, {e0, pairwise})}), sum});
  CHECK(proveReal(t.tc, softmax, other).answer == smt::Answer::Equal);
}
