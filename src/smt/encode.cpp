#include "src/smt/encode.h"

#include <cmath>

#include "src/sem/derived.h"
#include "src/sem/normal_form.h"

namespace torchtv::smt {

using sem::TermPtr;
using sem::TOp;

Encoder::Encoder(z3::context &c, const sem::TermContext &tc, Arith arith, sem::IndexRanges indexBounds, bool extended)
    : c_(c), tc_(tc), arith_(arith), indexBounds_(std::move(indexBounds)) {
  if (extended && arith == Arith::Real) xr_.emplace(c);
}

bool needsExtendedReals(TermPtr a, TermPtr b) {
  return sem::anySubterm(a, b, [](TermPtr t) { return t->op == TOp::Const && isFloating(t->dtype) && !std::isfinite(t->num); });
}

z3::sort Encoder::sortOf(DType d) {
  if (d == DType::Bool) return c_.bool_sort();
  if (isIntegral(d)) return c_.bv_sort(dtypeBits(d));
  if (arith_ == Arith::Real) return extended() ? xr_->sort() : c_.real_sort();
  switch (d) {
  case DType::F64: return c_.fpa_sort(11, 53);
  case DType::F16: return c_.fpa_sort(5, 11);
  case DType::BF16: return c_.fpa_sort(8, 8);
  default: return c_.fpa_sort(8, 24);
  }
}

z3::expr Encoder::rne() { return z3::expr(c_, Z3_mk_fpa_rne(c_)); }
z3::expr Encoder::fpNaN(DType d) { return z3::expr(c_, Z3_mk_fpa_nan(c_, sortOf(d))); }

z3::expr Encoder::var(int v) {
  auto b = bound_.find(v);
  if (b != bound_.end()) return c_.int_val(b->second);
  auto it = vars_.find(v);
  if (it != vars_.end()) return it->second;
  z3::expr x = c_.int_const(tc_.vars.name(v).c_str());
  const Dim &ext = tc_.vars.extent(v);
  constraints_.push_back(x >= 0);
  if (ext.isConcrete()) {
    constraints_.push_back(x < c_.int_val(ext.size()));
  } else {
    auto s = dimSymbols_.find(ext.symbolName());
    if (s == dimSymbols_.end()) {
      z3::expr d = c_.int_const(("dim_" + ext.symbolName()).c_str());
      constraints_.push_back(d >= 1);
      s = dimSymbols_.emplace(ext.symbolName(), d).first;
    }
    constraints_.push_back(x < s->second);
  }
  vars_.emplace(v, x);
  return x;
}

z3::expr Encoder::index(const sem::IndexExpr &e) {
  z3::expr s = c_.int_val(e.constantPart());
  for (auto &[a, k] : e.terms()) {
    z3::expr v = c_.int_val(0);
    switch (a->kind) {
    case sem::IndexAtom::Kind::Var: v = var(a->var); break;
    // Z3's div/mod are Euclidean: for a positive divisor that is floor division.
    case sem::IndexAtom::Kind::Div: v = z3::expr(c_, Z3_mk_div(c_, index(*a->arg), c_.int_val(a->divisor))); break;
    case sem::IndexAtom::Kind::Mod: v = z3::mod(index(*a->arg), c_.int_val(a->divisor)); break;
    }
    s = s + c_.int_val(k) * v;
  }
  return s;
}

// Note [Positions as values in terms]: the integer c as a bit-vector of the term's width (modulo
// 2^n, as the evaluator wraps it), at both levels (integers are bit-vectors at both). Z3 decides
// int2bv slowly: an in-place cross-entropy backward whose index_put positions are arange(4) * 6 +
// target ran out of time, where the select over the positions arange used to be took a moment. So
// a position that takes at most kValueSelectLimit values is the select over them, and only a wider
// one (a vocabulary) goes through int2bv.
z3::expr Encoder::indexValue(TermPtr t) {
  constexpr int64_t kValueSelectLimit = 128;
  const sem::IndexExpr &c = t->index[0];
  z3::expr at = index(c);
  unsigned bits = static_cast<unsigned>(dtypeBits(t->dtype));
  auto [lo, hi] = c.bounds(tc_.vars);
  if (!lo || !hi || *hi - *lo >= kValueSelectLimit) return z3::expr(c_, Z3_mk_int2bv(c_, bits, at));
  z3::expr r = c_.bv_val(static_cast<int64_t>(*hi), bits);
  for (int64_t k = *hi - 1; k >= *lo; --k) r = z3::ite(at == c_.int_val(k), c_.bv_val(static_cast<int64_t>(k), bits), r);
  return r;
}

z3::expr Encoder::uf(const std::string &name, const std::vector<z3::expr> &args, const z3::sort &range) {
  z3::sort_vector domain(c_);
  z3::expr_vector av(c_);
  for (const z3::expr &a : args) {
    domain.push_back(a.get_sort());
    av.push_back(a);
  }
  std::string full = name;
  for (const z3::expr &a : args) full += "_" + a.get_sort().to_string();
  full += "_" + range.to_string();
  z3::func_decl f = c_.function(full.c_str(), domain, range);
  return f(av);
}

z3::expr Encoder::constant(TermPtr t) {
  DType d = t->dtype;
  if (d == DType::Bool) return c_.bool_val(t->inum != 0);
  if (isIntegral(d)) return c_.bv_val(static_cast<uint64_t>(t->inum), dtypeBits(d));
  if (extended()) return xr_->constant(t->num);  // Note [Extended reals at level real]
  if (arith_ == Arith::Real) {
    if (!std::isfinite(t->num)) throw sem::Unsupported("a non-finite constant at level real");
    return z3::expr(c_, Z3_mk_numeral(c_, sem::exactRational(t->num).c_str(), c_.real_sort()));
  }
  if (std::isnan(t->num)) return fpNaN(d);
  // Note [Constants keep their written value]: rounded here to the sort.
  return z3::expr(c_, Z3_mk_fpa_numeral_double(c_, sem::roundToDType(t->num, d), sortOf(d)));
}

z3::expr Encoder::cast(const z3::expr &x, DType from, DType to) {
  if (extended() && isFloating(from) && isFloating(to)) return x;  // exact over the (extended) reals
  if (extended() && isFloating(from) && to == DType::Bool) return !xr_->eq(x, xr_->finite(c_.real_val(0)));  // NaN: true
  if (extended() && isFloating(to)) {
    z3::expr real = from == DType::Bool ? z3::ite(x, c_.real_val(1), c_.real_val(0))
                                        : z3::to_real(z3::expr(c_, Z3_mk_bv2int(c_, x, from != DType::U8)));
    return xr_->finite(real);
  }
  if (to == DType::Bool) {
    if (from == DType::Bool) return x;
    if (isIntegral(from)) return x != c_.bv_val(0, dtypeBits(from));
    if (arith_ == Arith::Real) return x != c_.real_val(0);
    return !z3::expr(c_, Z3_mk_fpa_is_zero(c_, x));  // NaN converts to true
  }
  if (from == DType::Bool) {
    if (isIntegral(to)) return z3::ite(x, c_.bv_val(1, dtypeBits(to)), c_.bv_val(0, dtypeBits(to)));
    if (arith_ == Arith::Real) return z3::ite(x, c_.real_val(1), c_.real_val(0));
    return z3::ite(x, z3::expr(c_, Z3_mk_fpa_numeral_double(c_, 1.0, sortOf(to))),
                   z3::expr(c_, Z3_mk_fpa_numeral_double(c_, 0.0, sortOf(to))));
  }
  if (isIntegral(from) && isIntegral(to)) {
    int fb = dtypeBits(from), tb = dtypeBits(to);
    if (tb == fb) return x;
    if (tb < fb) return x.extract(tb - 1, 0);
    return from == DType::U8 ? z3::zext(x, tb - fb) : z3::sext(x, tb - fb);
  }
  if (isIntegral(from)) {
    if (arith_ == Arith::Real) {
      z3::expr u = z3::expr(c_, Z3_mk_bv2int(c_, x, from != DType::U8));
      return z3::to_real(u);
    }
    if (from == DType::U8) return z3::expr(c_, Z3_mk_fpa_to_fp_unsigned(c_, rne(), x, sortOf(to)));
    return z3::expr(c_, Z3_mk_fpa_to_fp_signed(c_, rne(), x, sortOf(to)));
  }
  if (isIntegral(to)) {
    if (arith_ == Arith::Real) return uf("trunc", {x}, sortOf(to));
    // Truncation toward zero; NaN, infinities and out-of-range values give an
    // unspecified (but fixed) result in Z3, as in C++.
    return z3::expr(c_, Z3_mk_fpa_to_sbv(c_, z3::expr(c_, Z3_mk_fpa_rtz(c_)), x, dtypeBits(to)));
  }
  if (arith_ == Arith::Real) return x;
  return z3::expr(c_, Z3_mk_fpa_to_fp_float(c_, rne(), x, sortOf(to)));
}

bool Encoder::finiteTerm(TermPtr t) {
  auto known = finite_.find(t->id);
  if (known != finite_.end()) return known->second;
  bool f = !(t->op == TOp::Const && isFloating(t->dtype) && !std::isfinite(t->num));
  for (TermPtr a : t->args) f = f && finiteTerm(a);
  finite_.emplace(t->id, f);
  return f;
}

z3::expr Encoder::encode(TermPtr t) {
  // Note [Extended reals at level real]: a term without a non-finite constant is finite; its
  // plain real encoding, as a pair (a term is always encoded in one mode: one memo serves).
  if (extended() && finiteTerm(t)) {
    plain_ = true;
    z3::expr r = encode(t);
    plain_ = false;
    return isFloating(t->dtype) ? xr_->finite(r) : r;
  }
  bool invariant = !sem::dependsOnBound(t, bound_);
  if (invariant) {
    auto it = memo_.find(t->id);
    if (it != memo_.end()) return it->second;
  }
  z3::expr r = compute(t);
  if (invariant) memo_.emplace(t->id, r);
  return r;
}

z3::expr Encoder::reduce(TermPtr t) {
  DType d = t->dtype;
  bool unroll = arith_ == Arith::Real && t->extent.isConcrete() && t->extent.size() <= kUnrollLimit &&
                t->extent.size() > 0;
  if (!unroll) {
    // An uninterpreted function of the free index variables, named by the
    // hash-consed (canonically renamed) term: equal only to itself.
    std::vector<z3::expr> args;
    for (int v : t->freeVars) args.push_back(var(v));
    return uf("red" + std::to_string(t->id), args, sortOf(d));
  }
  bound_[t->binder] = 0;
  z3::expr acc = encode(t->args[0]);
  for (int64_t k = 1; k < t->extent.size(); ++k) {
    bound_[t->binder] = k;
    z3::expr x = encode(t->args[0]);
    if (extended() && isFloating(d)) acc = extendedFold(t->op, acc, x);
    else if (t->op == TOp::Sum || t->op == TOp::Pick) acc = acc + x;
    else if (t->op == TOp::Prod) acc = acc * x;
    else if (t->op == TOp::RMax) acc = z3::ite(acc < x, x, acc);
    else acc = z3::ite(x < acc, x, acc);
  }
  bound_.erase(t->binder);
  return acc;
}

z3::expr Encoder::binaryFp(TOp op, const z3::expr &a, const z3::expr &b) {
  switch (op) {
  case TOp::Add: return z3::expr(c_, Z3_mk_fpa_add(c_, rne(), a, b));
  case TOp::Sub: return z3::expr(c_, Z3_mk_fpa_sub(c_, rne(), a, b));
  case TOp::Mul: return z3::expr(c_, Z3_mk_fpa_mul(c_, rne(), a, b));
  default: return z3::expr(c_, Z3_mk_fpa_div(c_, rne(), a, b));
  }
}

// The algebra derived.h's formulas are written over, at level real.
struct Encoder::RealAlgebra {
  using V = z3::expr;
  Encoder &e;
  z3::sort s;
  z3::expr num(double v) { return z3::expr(e.c_, Z3_mk_numeral(e.c_, sem::exactRational(v).c_str(), s)); }
  z3::expr add(const z3::expr &a, const z3::expr &b) { return a + b; }
  z3::expr mul(const z3::expr &a, const z3::expr &b) { return a * b; }
  z3::expr div(const z3::expr &a, const z3::expr &b, const char *) { return a / b; }
  z3::expr neg(const z3::expr &a) { return -a; }
  z3::expr exp(const z3::expr &a) { return e.uf(sem::topName(TOp::Exp), {a}, s); }
  z3::expr erf(const z3::expr &a) { return e.uf(sem::topName(TOp::Erf), {a}, s); }
  z3::expr tanh(const z3::expr &a) { return e.uf(sem::topName(TOp::Tanh), {a}, s); }
};

z3::expr Encoder::compute(TermPtr t) {
  DType d = t->dtype;
  bool real = arith_ == Arith::Real;
  auto A = [&](int i) { return encode(t->args[i]); };
  auto fpIsNaN = [&](const z3::expr &x) { return z3::expr(c_, Z3_mk_fpa_is_nan(c_, x)); };
  switch (t->op) {
  case TOp::Const: return constant(t);
  case TOp::Read: {
    std::vector<z3::expr> idx;
    for (const sem::IndexExpr &e : t->index) idx.push_back(index(e));
    // Inputs are finite at level real: a read is always encoded as a plain real (encode,
    // Note [Extended reals at level real]).
    z3::expr v = uf("t" + std::to_string(t->slot), idx, sortOf(d));
    reads_.push_back({t->slot, idx, v});
    // Note [Index inputs in range] (signed comparisons of the bit-vector).
    auto bound = indexBounds_.find(t->slot);
    if (bound != indexBounds_.end() && isIntegral(d) && d != DType::U8 && d != DType::U64) {
      int bits = dtypeBits(d);
      z3::expr in = v >= c_.bv_val(0, bits) && v < c_.bv_val(bound->second.bound, bits);
      // Note [Reference kernel domains]: and the points the reference's kernel also accepts.
      for (int64_t p : bound->second.alsoDefined) in = in || v == c_.bv_val(p, bits);
      constraints_.push_back(in);
    }
    return v;
  }
  case TOp::IndexCmp: {
    z3::expr a = index(t->index[0]), b = index(t->index[1]);
    return t->inum == 0 ? a < b : t->inum == 1 ? a <= b : a == b;
  }
  case TOp::Select: return z3::ite(A(0), A(1), A(2));
  // Note [Data-dependent indices]: a function of the index that raises.
  case TOp::Raise: return uf(std::string("raise_") + std::string(dtypeName(d)), {A(0)}, sortOf(d));
  case TOp::Unspecified: {
    // Note [index_put semantics]: a fresh function of the element's position, named by the term
    // (its operand only names the call), so equal to nothing but the same element of the same call.
    std::vector<z3::expr> at;
    for (int v : t->freeVars) at.push_back(var(v));
    return uf("unspecified" + std::to_string(t->id), at, sortOf(d));
  }
  case TOp::Cast: return cast(A(0), t->args[0]->dtype, d);
  case TOp::Sum: case TOp::Pick: case TOp::RMax: case TOp::RMin: case TOp::Prod: return reduce(t);
  case TOp::IndexValue: return indexValue(t);
  case TOp::Not: return !A(0);
  case TOp::And: return A(0) && A(1);
  case TOp::Or: return A(0) || A(1);
  case TOp::Xor: return A(0) != A(1);
  default: break;
  }
  DType od = t->args[0]->dtype;
  bool intOps = isIntegral(od) || od == DType::Bool;
  bool unsignedOps = od == DType::U8 || od == DType::U64;
  switch (t->op) {
  case TOp::Lt: case TOp::Le: case TOp::Gt: case TOp::Ge: case TOp::Eq: case TOp::Ne: {
    z3::expr a = A(0), b = A(1);
    if (od == DType::Bool) {
      if (t->op == TOp::Eq) return a == b;
      if (t->op == TOp::Ne) return a != b;
      a = z3::ite(a, c_.int_val(1), c_.int_val(0));
      b = z3::ite(b, c_.int_val(1), c_.int_val(0));
    } else if (intOps) {
      switch (t->op) {
      case TOp::Lt: return unsignedOps ? z3::ult(a, b) : a < b;
      case TOp::Le: return unsignedOps ? z3::ule(a, b) : a <= b;
      case TOp::Gt: return unsignedOps ? z3::ugt(a, b) : a > b;
      case TOp::Ge: return unsignedOps ? z3::uge(a, b) : a >= b;
      case TOp::Eq: return a == b;
      default: return a != b;
      }
    }
    if (extended() && isFloating(od)) {
      switch (t->op) {
      case TOp::Lt: return xr_->lt(a, b);
      case TOp::Le: return xr_->le(a, b);
      case TOp::Gt: return xr_->lt(b, a);
      case TOp::Ge: return xr_->le(b, a);
      case TOp::Eq: return xr_->eq(a, b);
      default: return !xr_->eq(a, b);
      }
    }
    if (!real && isFloating(od)) {
      switch (t->op) {
      case TOp::Lt: return z3::expr(c_, Z3_mk_fpa_lt(c_, a, b));
      case TOp::Le: return z3::expr(c_, Z3_mk_fpa_leq(c_, a, b));
      case TOp::Gt: return z3::expr(c_, Z3_mk_fpa_gt(c_, a, b));
      case TOp::Ge: return z3::expr(c_, Z3_mk_fpa_geq(c_, a, b));
      case TOp::Eq: return z3::expr(c_, Z3_mk_fpa_eq(c_, a, b));
      default: return !z3::expr(c_, Z3_mk_fpa_eq(c_, a, b));  // NaN != x is true
      }
    }
    switch (t->op) {
    case TOp::Lt: return a < b;
    case TOp::Le: return a <= b;
    case TOp::Gt: return a > b;
    case TOp::Ge: return a >= b;
    case TOp::Eq: return a == b;
    default: return a != b;
    }
  }
  case TOp::IsNan: return extended() ? xr_->isNaN(A(0)) : real ? c_.bool_val(false) : fpIsNaN(A(0));
  case TOp::IsInf: return extended() ? xr_->isInf(A(0)) : real ? c_.bool_val(false) : z3::expr(c_, Z3_mk_fpa_is_infinite(c_, A(0)));
  default: break;
  }
  if (isIntegral(d)) {
    switch (t->op) {
    case TOp::Add: return A(0) + A(1);
    case TOp::Sub: return A(0) - A(1);
    case TOp::Mul: return A(0) * A(1);
    case TOp::Neg: return -A(0);
    case TOp::Abs: return z3::ite(A(0) < c_.bv_val(0, dtypeBits(d)), -A(0), A(0));
    case TOp::Maximum: return unsignedOps ? z3::ite(z3::ult(A(0), A(1)), A(1), A(0)) : z3::ite(A(0) < A(1), A(1), A(0));
    case TOp::Minimum: return unsignedOps ? z3::ite(z3::ult(A(1), A(0)), A(1), A(0)) : z3::ite(A(1) < A(0), A(1), A(0));
    default: throw sem::Unsupported(std::string("integer ") + sem::topName(t->op) + " in Z3");
    }
  }
  if (extended()) return computeExtended(t);
  z3::sort s = sortOf(d);
  std::string dn(dtypeName(d));
  if (real && sem::hasProp(t->op, sem::tprop::Derived)) {
    // Its formula (Note [Derived operations]), exp, erf and tanh uninterpreted:
    // an axiom at level real (Note [Real normal form] justifies it).
    RealAlgebra alg{*this, s};
    return sem::derivedFormula(alg, t->op, A(0));
  }
  if (real) {
    switch (t->op) {
    case TOp::Add: return A(0) + A(1);
    case TOp::Sub: return A(0) - A(1);
    case TOp::Mul:
      // A mask as a factor (x * float(c)): ite(c, x, 0), linear where Z3 reads a product of two
      // unknowns as nonlinear (a one-hot picking a row's target timed out).
      for (int i : {0, 1})
        if (t->args[i]->op == TOp::Cast && t->args[i]->args[0]->dtype == DType::Bool)
          return z3::ite(encode(t->args[i]->args[0]), A(1 - i), c_.real_val(0));
      return A(0) * A(1);
    case TOp::Div: return A(0) / A(1);
    case TOp::Neg: return -A(0);
    case TOp::Abs: return z3::ite(A(0) < 0, -A(0), A(0));
    case TOp::Maximum: return z3::ite(A(0) < A(1), A(1), A(0));
    case TOp::Minimum: return z3::ite(A(1) < A(0), A(1), A(0));
    case TOp::PowC:
      if (t->num == 2) return A(0) * A(0);
      if (t->num == 3) return A(0) * A(0) * A(0);
      if (t->num == 1) return A(0);
      if (t->num == -1) return 1 / A(0);
      return uf("pow" + sem::exactRational(t->num), {A(0)}, s);
    default: break;
    }
  } else {
    switch (t->op) {
    case TOp::Add: case TOp::Sub: case TOp::Mul: case TOp::Div: return binaryFp(t->op, A(0), A(1));
    case TOp::Neg: return z3::expr(c_, Z3_mk_fpa_neg(c_, A(0)));
    case TOp::Abs: return z3::expr(c_, Z3_mk_fpa_abs(c_, A(0)));
    case TOp::Sqrt: return z3::expr(c_, Z3_mk_fpa_sqrt(c_, rne(), A(0)));
    case TOp::Maximum: case TOp::Minimum: {
      z3::expr a = A(0), b = A(1);
      z3::expr pick = t->op == TOp::Maximum ? z3::ite(z3::expr(c_, Z3_mk_fpa_lt(c_, a, b)), b, a)
                                            : z3::ite(z3::expr(c_, Z3_mk_fpa_lt(c_, b, a)), b, a);
      return z3::ite(fpIsNaN(a) || fpIsNaN(b), fpNaN(d), pick);
    }
    case TOp::Floor: return z3::expr(c_, Z3_mk_fpa_round_to_integral(c_, z3::expr(c_, Z3_mk_fpa_rtn(c_)), A(0)));
    case TOp::Ceil: return z3::expr(c_, Z3_mk_fpa_round_to_integral(c_, z3::expr(c_, Z3_mk_fpa_rtp(c_)), A(0)));
    case TOp::Round: return z3::expr(c_, Z3_mk_fpa_round_to_integral(c_, rne(), A(0)));
    case TOp::Trunc: return z3::expr(c_, Z3_mk_fpa_round_to_integral(c_, z3::expr(c_, Z3_mk_fpa_rtz(c_)), A(0)));
    case TOp::PowC:
      if (t->num == 2) return binaryFp(TOp::Mul, A(0), A(0));
      if (t->num == 3) return binaryFp(TOp::Mul, binaryFp(TOp::Mul, A(0), A(0)), A(0));
      if (t->num == 0.5) return z3::expr(c_, Z3_mk_fpa_sqrt(c_, rne(), A(0)));
      if (t->num == -1) return binaryFp(TOp::Div, z3::expr(c_, Z3_mk_fpa_numeral_double(c_, 1.0, s)), A(0));
      return uf("pow" + sem::exactRational(t->num), {A(0)}, s);
    default: break;
    }
  }
  // Uninterpreted: same function of the same arguments on both sides.
  // (sqrt, floor, ...: exact in IEEE above, functions without a theory over the reals).
  if (sem::isUninterpreted(t->op) || sem::isRealFunction(t->op)) {
    std::vector<z3::expr> args;
    for (size_t i = 0; i < t->args.size(); ++i) args.push_back(A(static_cast<int>(i)));
    return uf(sem::topName(t->op), args, s);
  }
  throw sem::Unsupported(std::string("no Z3 encoding for ") + sem::topName(t->op));
}

bool Encoder::toDouble(z3::context &c, const z3::expr &v, double &out) {
  if (v.is_bool()) {
    out = v.is_true() ? 1 : 0;
    return v.is_true() || v.is_false();
  }
  // An extended real (Note [Extended reals at level real]): its kind, then its value.
  if (v.get_sort().is_datatype() && v.is_app() && v.num_args() == 2) {
    double kind = 0;
    if (!toDouble(c, v.arg(0), kind)) return false;
    if (kind == ExtendedReals::NaN) out = NAN;
    else if (kind == ExtendedReals::PosInf) out = INFINITY;
    else if (kind == ExtendedReals::NegInf) out = -INFINITY;
    else return toDouble(c, v.arg(1), out);
    return true;
  }
  if (v.is_bv()) {
    if (!v.is_numeral()) return false;
    uint64_t u = 0;
    if (!Z3_get_numeral_uint64(c, v, &u)) return false;
    unsigned bits = v.get_sort().bv_size();
    int64_t s = bits == 64 ? static_cast<int64_t>(u) : static_cast<int64_t>(u << (64 - bits)) >> (64 - bits);
    out = static_cast<double>(s);
    return true;
  }
  if (v.is_real() || v.is_int()) {
    if (!v.is_numeral()) return false;
    out = std::strtod(Z3_get_numeral_decimal_string(c, v, 40), nullptr);
    return true;
  }
  // Floating point: classify, then read the value through fp.to_real.
  auto holds = [&](Z3_ast a) { return z3::expr(c, a).simplify().is_true(); };
  if (holds(Z3_mk_fpa_is_nan(c, v))) { out = NAN; return true; }
  bool neg = holds(Z3_mk_fpa_is_negative(c, v));
  if (holds(Z3_mk_fpa_is_infinite(c, v))) { out = neg ? -INFINITY : INFINITY; return true; }
  if (holds(Z3_mk_fpa_is_zero(c, v))) { out = neg ? -0.0 : 0.0; return true; }
  z3::expr r = z3::expr(c, Z3_mk_fpa_to_real(c, v)).simplify();
  if (!r.is_numeral()) return false;
  std::string frac = Z3_get_numeral_string(c, r);
  auto slash = frac.find('/');
  if (slash == std::string::npos) out = std::strtod(frac.c_str(), nullptr);
  else out = std::strtod(frac.substr(0, slash).c_str(), nullptr) / std::strtod(frac.substr(slash + 1).c_str(), nullptr);
  return true;
}

}  // namespace torchtv::smt
