// Float operations over extended reals at level real (Note [Extended reals at level real]
// in extended_real.h): what Encoder::compute does for them when the query holds -inf or NaN.
#include <string>

#include "src/sem/derived.h"
#include "src/sem/normal_form.h"
#include "src/smt/encode.h"

namespace torchtv::smt {

using sem::TermPtr;
using sem::TOp;

// derived.h's formulas (Note [Derived operations]) over extended reals: sigmoid(-inf) = 1 / (1 +
// exp(inf)) = 0 comes out of the rules of each operation.
struct Encoder::ExtendedAlgebra {
  using V = z3::expr;
  Encoder &e;
  const ExtendedReals &x;
  z3::expr num(double v) { return x.constant(v); }
  z3::expr add(const z3::expr &a, const z3::expr &b) { return x.add(a, b); }
  z3::expr mul(const z3::expr &a, const z3::expr &b) { return x.mul(a, b); }
  z3::expr div(const z3::expr &a, const z3::expr &b, const char *) { return x.div(a, b); }
  z3::expr neg(const z3::expr &a) { return x.neg(a); }
  z3::expr exp(const z3::expr &a) { return e.extendedUnary(TOp::Exp, a); }
  z3::expr erf(const z3::expr &a) { return e.extendedUnary(TOp::Erf, a); }
  z3::expr tanh(const z3::expr &a) { return e.extendedUnary(TOp::Tanh, a); }
};

// A function of one real with known limits at +-inf; NaN at NaN.
z3::expr Encoder::extendedUnary(TOp op, const z3::expr &a) {
  const ExtendedReals &x = *xr_;
  z3::expr onFinite = x.finite(uf(sem::topName(op), {x.value(a)}, c_.real_sort()));
  z3::expr one = x.constant(1), minusOne = x.constant(-1);
  switch (op) {
  case TOp::Exp: return x.unary(a, onFinite, x.of(ExtendedReals::PosInf), x.constant(0));
  case TOp::Log: return x.unary(a, onFinite, x.of(ExtendedReals::PosInf), x.of(ExtendedReals::NaN));
  case TOp::Sqrt: return x.unary(a, onFinite, x.of(ExtendedReals::PosInf), x.of(ExtendedReals::NaN));
  case TOp::Tanh: case TOp::Erf: return x.unary(a, onFinite, one, minusOne);
  default: return x.opaqueOutsideReals(sem::topName(op), {a}, onFinite);
  }
}

z3::expr Encoder::extendedFold(TOp reduction, const z3::expr &acc, const z3::expr &v) {
  switch (reduction) {
  case TOp::Prod: return xr_->mul(acc, v);
  case TOp::RMax: return xr_->maximum(acc, v);  // NaN wins, as in ATen's max
  case TOp::RMin: return xr_->minimum(acc, v);
  default: return xr_->add(acc, v);  // Sum, Pick
  }
}

z3::expr Encoder::computeExtended(TermPtr t) {
  const ExtendedReals &x = *xr_;
  auto A = [&](int i) { return encode(t->args[i]); };
  switch (t->op) {
  case TOp::Add: return x.add(A(0), A(1));
  case TOp::Sub: return x.sub(A(0), A(1));
  case TOp::Mul:
    // A mask as a factor (x * float(c)): linear for Z3, as in compute; 0 * inf is still NaN.
    for (int i : {0, 1})
      if (t->args[i]->op == TOp::Cast && t->args[i]->args[0]->dtype == DType::Bool)
        return z3::ite(encode(t->args[i]->args[0]), A(1 - i), x.mul(A(1 - i), x.constant(0)));
    return x.mul(A(0), A(1));
  case TOp::Div: return x.div(A(0), A(1));
  case TOp::Neg: return x.neg(A(0));
  case TOp::Abs: return x.abs(A(0));
  case TOp::Maximum: return x.maximum(A(0), A(1));
  case TOp::Minimum: return x.minimum(A(0), A(1));
  case TOp::PowC: {
    z3::expr a = A(0), v = x.value(a);
    z3::expr onFinite = t->num == 2   ? x.finite(v * v)
                        : t->num == 1 ? a
                                      : x.finite(uf("pow" + sem::exactRational(t->num), {v}, c_.real_sort()));
    return x.opaqueOutsideReals("pow" + sem::exactRational(t->num), {a}, onFinite);
  }
  default: break;
  }
  if (sem::hasProp(t->op, sem::tprop::Derived)) {
    ExtendedAlgebra alg{*this, x};
    return sem::derivedFormula(alg, t->op, A(0));
  }
  if (t->args.size() == 1 && (sem::isUninterpreted(t->op) || sem::isRealFunction(t->op)))
    return extendedUnary(t->op, A(0));
  if (sem::isUninterpreted(t->op) || sem::isRealFunction(t->op)) {
    std::vector<z3::expr> args, values;
    for (size_t i = 0; i < t->args.size(); ++i) {
      args.push_back(A(static_cast<int>(i)));
      values.push_back(isFloating(t->args[i]->dtype) ? x.value(args.back()) : args.back());
    }
    return x.opaqueOutsideReals(sem::topName(t->op), args, x.finite(uf(sem::topName(t->op), values, c_.real_sort())));
  }
  throw sem::Unsupported(std::string("no Z3 encoding for ") + sem::topName(t->op) + " over extended reals");
}

}  // namespace torchtv::smt
