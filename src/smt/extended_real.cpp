#include "src/smt/extended_real.h"

#include <cmath>

#include "src/sem/normal_form.h"

namespace torchtv::smt {

namespace {

z3::func_decl pairSort(z3::context &c, z3::func_decl_vector &projections) {
  const char *names[] = {"kind", "value"};
  z3::sort sorts[] = {c.real_sort(), c.real_sort()};  // one theory: kinds as reals too
  return c.tuple_sort("xreal", 2, names, sorts, projections);
}

}  // namespace

ExtendedReals::ExtendedReals(z3::context &c)
    : c_(c), projections_(c), pair_(pairSort(c, projections_)), sort_(pair_.range()), kindOf_(projections_[0]),
      valueOf_(projections_[1]) {}

z3::expr ExtendedReals::field(const z3::expr &x, unsigned i) const {
  auto key = std::make_pair(x.id(), i);
  auto known = fields_.find(key);
  if (known != fields_.end()) return known->second.second;
  z3::expr r = x;
  if (x.is_app() && Z3_is_eq_func_decl(c_, x.decl(), pair_)) r = x.arg(i);
  else if (x.is_app() && x.decl().decl_kind() == Z3_OP_ITE) r = z3::ite(x.arg(0), field(x.arg(1), i), field(x.arg(2), i));
  else r = i == 0 ? kindOf_(x) : valueOf_(x);
  fields_.emplace(key, std::make_pair(x, r));
  return r;
}

z3::expr ExtendedReals::make(const z3::expr &k, const z3::expr &v) const {
  return pair_(k, z3::ite(k == c_.real_val(Finite), v, c_.real_val(0)));
}

z3::expr ExtendedReals::finite(const z3::expr &real) const { return pair_(c_.real_val(Finite), real); }

z3::expr ExtendedReals::of(Kind k) const { return pair_(c_.real_val(k), c_.real_val(0)); }

z3::expr ExtendedReals::constant(double v) const {
  if (std::isnan(v)) return of(NaN);
  if (std::isinf(v)) return of(v > 0 ? PosInf : NegInf);
  return finite(z3::expr(c_, Z3_mk_numeral(c_, sem::exactRational(v).c_str(), c_.real_sort())));
}

z3::expr ExtendedReals::sign(const z3::expr &x) const {
  z3::expr v = value(x);
  return z3::ite(kind(x) == c_.real_val(PosInf), c_.real_val(1),
                 z3::ite(kind(x) == c_.real_val(NegInf), c_.real_val(-1),
                         z3::ite(v > 0, c_.real_val(1), z3::ite(v < 0, c_.real_val(-1), c_.real_val(0)))));
}

z3::expr ExtendedReals::neg(const z3::expr &a) const {
  z3::expr k = kind(a);
  return z3::ite(k == c_.real_val(PosInf), of(NegInf),
                 z3::ite(k == c_.real_val(NegInf), of(PosInf), make(k, -value(a))));
}

z3::expr ExtendedReals::add(const z3::expr &a, const z3::expr &b) const {
  z3::expr ka = kind(a), kb = kind(b);
  z3::expr opposite = (ka == c_.real_val(PosInf) && kb == c_.real_val(NegInf)) ||
                      (ka == c_.real_val(NegInf) && kb == c_.real_val(PosInf));
  return z3::ite(isNaN(a) || isNaN(b) || opposite, of(NaN),
                 z3::ite(isInf(a), a, z3::ite(isInf(b), b, finite(value(a) + value(b)))));
}

z3::expr ExtendedReals::mul(const z3::expr &a, const z3::expr &b) const {
  z3::expr sa = sign(a), sb = sign(b);
  z3::expr zero = sa == c_.real_val(0) || sb == c_.real_val(0);
  z3::expr positive = sa == sb;  // of non-zero signs (no product: Z3 would read it as nonlinear)
  z3::expr infinite = isInf(a) || isInf(b);
  return z3::ite(isNaN(a) || isNaN(b) || (infinite && zero), of(NaN),
                 z3::ite(infinite, z3::ite(positive, of(PosInf), of(NegInf)), finite(value(a) * value(b))));
}

// Division by a finite 0 is what level real says (Z3's real division), an inf
// divided by a finite value keeps its sign times the divisor's (0 read as +0).
z3::expr ExtendedReals::div(const z3::expr &a, const z3::expr &b) const {
  z3::expr negativeB = sign(b) == c_.real_val(-1);
  z3::expr positive = (sign(a) == c_.real_val(1)) != negativeB;  // a is infinite here: its sign is not 0
  return z3::ite(isNaN(a) || isNaN(b) || (isInf(a) && isInf(b)), of(NaN),
                 z3::ite(isInf(a), z3::ite(positive, of(PosInf), of(NegInf)),
                         z3::ite(isInf(b), finite(c_.real_val(0)), finite(value(a) / value(b)))));
}

z3::expr ExtendedReals::abs(const z3::expr &a) const {
  z3::expr v = value(a);
  return z3::ite(isInf(a), of(PosInf), make(kind(a), z3::ite(v < 0, -v, v)));
}

z3::expr ExtendedReals::rank(const z3::expr &x) const {
  return z3::ite(kind(x) == c_.real_val(NegInf), c_.real_val(-1),
                 z3::ite(kind(x) == c_.real_val(PosInf), c_.real_val(1), c_.real_val(0)));
}

z3::expr ExtendedReals::lt(const z3::expr &a, const z3::expr &b) const {
  z3::expr ra = rank(a), rb = rank(b);
  return !isNaN(a) && !isNaN(b) && (ra < rb || (ra == rb && isFinite(a) && value(a) < value(b)));
}

z3::expr ExtendedReals::le(const z3::expr &a, const z3::expr &b) const {
  return lt(a, b) || eq(a, b);
}

z3::expr ExtendedReals::eq(const z3::expr &a, const z3::expr &b) const { return !isNaN(a) && a == b; }

z3::expr ExtendedReals::maximum(const z3::expr &a, const z3::expr &b) const {
  return z3::ite(isNaN(a) || isNaN(b), of(NaN), z3::ite(lt(a, b), b, a));
}

z3::expr ExtendedReals::minimum(const z3::expr &a, const z3::expr &b) const {
  return z3::ite(isNaN(a) || isNaN(b), of(NaN), z3::ite(lt(b, a), b, a));
}

z3::expr ExtendedReals::unary(const z3::expr &a, const z3::expr &onFinite, const z3::expr &atPosInf,
                              const z3::expr &atNegInf) const {
  z3::expr k = kind(a);
  return z3::ite(k == c_.real_val(Finite), onFinite,
                 z3::ite(k == c_.real_val(PosInf), atPosInf, z3::ite(k == c_.real_val(NegInf), atNegInf, of(NaN))));
}

z3::expr ExtendedReals::opaqueOutsideReals(const std::string &name, const std::vector<z3::expr> &args,
                                           const z3::expr &onFinite) const {
  z3::expr allFinite = c_.bool_val(true);
  z3::sort_vector domain(c_);
  z3::expr_vector av(c_);
  for (const z3::expr &a : args) {
    if (a.get_sort().is_datatype()) allFinite = allFinite && isFinite(a);
    domain.push_back(a.get_sort());
    av.push_back(a);
  }
  z3::func_decl f = c_.function(("x_" + name).c_str(), domain, sort_);
  return z3::ite(allFinite, onFinite, f(av));
}

}  // namespace torchtv::smt
