// The table of term operations (Note [Term operation table] in src/sem/term.h):
// one row per TOp, unique names, and the properties TermContext reads from it;
// the formulas of derived ops (Note [Derived operations] in src/sem/derived.h).
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

#include "src/sem/derived.h"
#include "src/sem/normal_form.h"
#include "src/sem/term.h"

using namespace torchtv;
using sem::TOp;

TEST_CASE("term ops: every TOp has one row, in enum order, with a unique name that reads back") {
  const auto &all = sem::allTOps();
  REQUIRE(all.size() == static_cast<size_t>(TOp::Pick) + 1);  // Pick is the enum's last op
  std::set<std::string> names;
  for (size_t i = 0; i < all.size(); ++i) {
    const sem::TOpInfo &row = all[i];
    std::string name = row.name;
    CAPTURE(name);
    CHECK(static_cast<size_t>(row.op) == i);
    CHECK(sem::topInfo(row.op).name == row.name);
    CHECK(sem::topInfo(row.op).props == row.props);
    CHECK(std::string(row.name).size() > 0);
    CHECK(names.insert(row.name).second);
    auto back = sem::topByName(row.name);
    REQUIRE(back);
    CHECK(*back == row.op);
    CHECK(std::string(sem::topName(row.op)) == row.name);
  }
  CHECK_FALSE(sem::topByName("no_such_op"));
  CHECK_FALSE(sem::topByName(""));
}

TEST_CASE("term ops: properties are consistent with the arities") {
  for (const sem::TOpInfo &row : sem::allTOps()) {
    std::string name = row.name;
    CAPTURE(name);
    CHECK(row.arity >= 0);
    CHECK(row.arity <= 3);
    if (sem::isCommutative(row.op)) CHECK(row.arity == 2);
    if (sem::isReduction(row.op)) CHECK(row.arity == 1);
    // A derived op is a function (uninterpreted at level bitwise) of one operand.
    if (sem::hasProp(row.op, sem::tprop::Derived)) CHECK((row.arity == 1 && sem::isUninterpreted(row.op)));
    // Exact in IEEE or unknown: not both.
    CHECK_FALSE((sem::isRealFunction(row.op) && sem::isUninterpreted(row.op)));
  }
  CHECK(sem::isReduction(TOp::Sum));
  CHECK(sem::isUninterpreted(TOp::Exp));
  CHECK_FALSE(sem::isUninterpreted(TOp::Sqrt));  // IEEE square root is exact
  CHECK(sem::isRealFunction(TOp::Sqrt));
  CHECK(sem::isCommutative(TOp::Mul));
  CHECK_FALSE(sem::isCommutative(TOp::Sub));
}

TEST_CASE("term ops: TermContext builds terms by the table") {
  sem::TermContext tc;
  int i = tc.vars.fresh(4, "i");
  sem::TermPtr a = tc.read(0, {sem::IndexExpr::var(i)}, DType::F32);
  sem::TermPtr b = tc.read(1, {sem::IndexExpr::var(i)}, DType::F32);
  // Commutative ops are hash-consed up to operand order, others are not.
  CHECK(tc.make(TOp::Add, {a, b}, DType::F32) == tc.make(TOp::Add, {b, a}, DType::F32));
  CHECK(tc.make(TOp::Sub, {a, b}, DType::F32) != tc.make(TOp::Sub, {b, a}, DType::F32));
  // Bool-valued ops are bool whatever dtype the caller passes.
  CHECK(tc.make(TOp::Lt, {a, b}, DType::F32)->dtype == DType::Bool);
  CHECK(tc.make(TOp::IsNan, {a}, DType::F32)->dtype == DType::Bool);
  CHECK(tc.make(TOp::Mul, {a, b}, DType::F32)->dtype == DType::F32);
  // The printed form uses the table's name.
  CHECK(tc.str(tc.make(TOp::GeluTanh, {a}, DType::F32)).rfind("gelu_tanh(", 0) == 0);
  // An operand count other than the table's arity is a programming error.
  CHECK_THROWS_AS(tc.make(TOp::Add, {a}, DType::F32), std::logic_error);
  CHECK_THROWS_AS(tc.make(TOp::Exp, {a, b}, DType::F32), std::logic_error);
  CHECK_THROWS_AS(tc.make(TOp::Sum, {a}, DType::F32), std::logic_error);
}

namespace {

// derived.h's formulas over plain doubles.
struct DoubleAlgebra {
  using V = double;
  double num(double v) { return v; }
  double add(double a, double b) { return a + b; }
  double mul(double a, double b) { return a * b; }
  double div(double a, double b, const char *) { return a / b; }
  double neg(double a) { return -a; }
  double exp(double a) { return std::exp(a); }
  double erf(double a) { return std::erf(a); }
  double tanh(double a) { return std::tanh(a); }
};

}  // namespace

TEST_CASE("derived ops: every Derived op has its formula, with PyTorch's constants, and no other op has one") {
  DoubleAlgebra alg;
  for (double x : {-3.0, -0.5, 0.0, 0.7, 2.5}) {
    CAPTURE(x);
    double sig = 1 / (1 + std::exp(-x));
    CHECK(sem::derivedFormula(alg, TOp::Sigmoid, x) == doctest::Approx(sig).epsilon(1e-14));
    CHECK(sem::derivedFormula(alg, TOp::Silu, x) == doctest::Approx(x * sig).epsilon(1e-14));
    CHECK(sem::derivedFormula(alg, TOp::Gelu, x) ==
          doctest::Approx(0.5 * x * (1 + std::erf(x / std::sqrt(2.0)))).epsilon(1e-14));
    double inner = std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
    CHECK(sem::derivedFormula(alg, TOp::GeluTanh, x) == doctest::Approx(0.5 * x * (1 + std::tanh(inner))).epsilon(1e-14));
  }
  for (const sem::TOpInfo &row : sem::allTOps()) {
    std::string name = row.name;
    CAPTURE(name);
    if (sem::hasProp(row.op, sem::tprop::Derived)) CHECK_NOTHROW(sem::derivedFormula(alg, row.op, 1.0));
    else CHECK_THROWS_AS(sem::derivedFormula(alg, row.op, 1.0), std::logic_error);
  }
}

TEST_CASE("derived ops: the real normal form reads gelu(x, tanh) as its formula written out in terms") {
  sem::TermContext tc;
  int i = tc.vars.fresh(4, "i");
  sem::TermPtr x = tc.read(0, {sem::IndexExpr::var(i)}, DType::F32);
  auto c = [&](double v) { return tc.constant(v, DType::F32); };
  auto mul = [&](sem::TermPtr a, sem::TermPtr b) { return tc.make(TOp::Mul, {a, b}, DType::F32); };
  auto add = [&](sem::TermPtr a, sem::TermPtr b) { return tc.make(TOp::Add, {a, b}, DType::F32); };
  sem::TermPtr inner = mul(c(sem::kGeluTanhBeta), add(x, mul(c(sem::kGeluTanhKappa), mul(x, mul(x, x)))));
  sem::TermPtr spelled = mul(mul(c(0.5), x), add(c(1), tc.make(TOp::Tanh, {inner}, DType::F32)));
  sem::TermPtr spelledErf = mul(mul(x, c(0.5)), add(c(1), tc.make(TOp::Erf, {mul(x, c(sem::kGeluErfScale))}, DType::F32)));
  sem::NormalForm nf(tc);
  CHECK(nf.key(tc.make(TOp::GeluTanh, {x}, DType::F32)) == nf.key(spelled));
  CHECK(nf.key(tc.make(TOp::Gelu, {x}, DType::F32)) == nf.key(spelledErf));
  // A kappa off by one ulp is another function.
  sem::TermPtr offInner =
      mul(c(sem::kGeluTanhBeta), add(x, mul(c(std::nextafter(sem::kGeluTanhKappa, 1.0)), mul(x, mul(x, x)))));
  sem::TermPtr off = mul(mul(c(0.5), x), add(c(1), tc.make(TOp::Tanh, {offInner}, DType::F32)));
  CHECK(nf.key(tc.make(TOp::GeluTanh, {x}, DType::F32)) != nf.key(off));
}
