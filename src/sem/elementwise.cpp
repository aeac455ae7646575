// Elementwise ops: arithmetic, functions, comparisons, selection, casts.
// PyTorch's NaN and signed-zero behaviour is spelled out per op (checked
// against torch 1.13 on CPU; see Note [PyTorch NaN and zero rules]).
#include <cmath>

#include "src/sem/semantics.h"

namespace torchtv::sem {

namespace {

// Note [PyTorch NaN and zero rules]
//   relu(x) = clamp_min(x, 0) = x < 0 ? 0 : x      relu(-0.0) = -0.0, relu(NaN) = NaN
//   clamp_max(x, M) = x > M ? M : x                 NaN passes through
//   maximum(a, b) = NaN if either is NaN, else (a < b ? b : a)
//   minimum(a, b) = NaN if either is NaN, else (b < a ? b : a)
//     (the sign of a +0/-0 tie depends on the element's position: ATen's scalar loop
//     returns a, its vectorized loop b; ir/bitwise_faithful.cpp marks both real-only)
//   threshold_backward(g, x, t) = x <= t ? 0 : g    (x = NaN keeps g)
//   threshold(x, t, v) = x <= t ? v : x
//   leaky_relu(x, s) = x > 0 ? x : x * s            leaky_relu(-0.0) = -0.0
//   sign(x) = (0 < x) - (x < 0)                     sign(NaN) = 0 in torch 1.13
// These are Maximum/Minimum terms or Selects over comparisons, so every
// interpreter sees the same rule.

DType outDType(OpEnv &e) { return e.outType().dtype; }

// Note [bf16 computes in float]
// ATen's vectorized CPU kernels compute bf16 in float and round once at the
// end (f16 has no vectorized kernels in torch 1.13: its scalar loop rounds
// every operation to f16). For one IEEE operation that is the same as
// computing in the dtype; for a formula of several (sigmoid_backward,
// leaky_relu's x * slope with the slope as a float) it is not, so such a term
// computes bf16 in float and casts at the end (measured by the semantics audit).
DType kernelDType(DType d) { return d == DType::BF16 ? DType::F32 : d; }

TermPtr unaryFn(OpEnv &e, TOp op) {
  DType d = outDType(e);
  return e.tc.make(op, {e.operand(0, d)}, d);
}

TermPtr clampMin(TermContext &tc, TermPtr x, TermPtr lo) {
  return tc.select(tc.make(TOp::Lt, {x, lo}, x->dtype), lo, x);
}
TermPtr clampMax(TermContext &tc, TermPtr x, TermPtr hi) {
  return tc.select(tc.make(TOp::Gt, {x, hi}, x->dtype), hi, x);
}

// Note [Scaled operands of add and sub]
// add(a, b, alpha) is a + alpha * b, applied only when alpha is not 1 (as PyTorch does).
// PyTorch's CPU kernel computes it on floats with one fused multiply-add (rounded once),
// which the term alpha * b then + (rounded twice) is not bit for bit, and alpha * b may
// overflow where the fused form does not. Over the reals the two are the same number, so the
// term is exact at level real; ir/bitwise_faithful.cpp holds add/sub/rsub with alpha other
// than +-1 real-only, so no bitwise proof rests on the term. addcmul and addcdiv's `value`
// are the same (ATen: self + value * t1 * t2 and self + value * t1 / t2, which the compiler
// may contract into a fused multiply-add).
TermPtr withAlpha(OpEnv &e, TermPtr b, DType d) {
  const Attribute &alpha = e.node.attr("alpha");
  if ((alpha.isInt() && alpha.asInt() == 1) || (alpha.isFloat() && alpha.asFloat() == 1.0)) return b;
  return e.tc.make(TOp::Mul, {b, e.scalar("alpha", d)}, d);
}

// addcmul(self, t1, t2, value) = self + value * t1 * t2 and addcdiv = self + value * t1 / t2,
// in ATen's order of operations (Note [Scaled operands of add and sub]).
TermPtr addcOp(OpEnv &e, TOp op) {
  DType d = outDType(e), c = kernelDType(d);  // Note [bf16 computes in float]
  if (!isFloating(d)) e.unsupported("integer operands");
  TermPtr scaled = e.tc.make(TOp::Mul, {e.scalar("value", c), e.operand(1, c)}, c);
  TermPtr term = e.tc.make(op, {scaled, e.operand(2, c)}, c);
  return e.tc.cast(e.tc.make(TOp::Add, {e.operand(0, c), term}, c), d);
}

TermPtr binaryArith(OpEnv &e, TOp op, bool scalarOther, bool reversed = false) {
  DType d = outDType(e);
  TermPtr a = e.operand(0, d);
  TermPtr b = scalarOther ? e.scalar("other", d) : e.operand(1, d);
  if (e.node.schema->findArg("alpha")) b = withAlpha(e, b, d);
  if (reversed) std::swap(a, b);
  if ((op == TOp::Add || op == TOp::Sub || op == TOp::Mul) && d == DType::Bool)
    e.unsupported("arithmetic on bool tensors");
  return e.tc.make(op, {a, b}, d);
}

// Note [fmod, remainder and floor division]
// Floating only (integer division raises on zero and has no term). ATen 1.13's
// CPU kernels, scalar and vectorized alike:
//   fmod(a, b)      = C's fmod (exact)
//   remainder(a, b) = m = fmod(a, b); m != 0 && (b < 0) != (m < 0) ? m + b : m
//   div(a, b, "trunc") = trunc(a / b)
//   div(a, b, "floor") = b == 0 ? a / b :
//     m = fmod(a, b); q = (a - m) / b; if (m != 0 && (b < 0) != (m < 0)) q -= 1;
//     q != 0 ? (f = floor(q), q - f > 0.5 ? f + 1 : f) : copysign(0, a / b)
// copysign(0, a / b) is 0 * (a / b): there a / b is finite (q == 0 with a
// finite remainder), and +0 times a finite number has its sign.
TermPtr otherOperand(OpEnv &e, bool scalarOther, DType d) {
  return scalarOther ? e.scalar("other", d) : e.operand(1, d);
}

TermPtr wrongSign(TermContext &tc, TermPtr m, TermPtr b, DType d) {
  TermPtr zero = tc.constant(0, d);
  TermPtr signsDiffer = tc.make(TOp::Xor, {tc.make(TOp::Lt, {b, zero}, d), tc.make(TOp::Lt, {m, zero}, d)}, DType::Bool);
  return tc.make(TOp::And, {tc.make(TOp::Ne, {m, zero}, d), signsDiffer}, DType::Bool);
}

TermPtr fmodOrRemainder(OpEnv &e, bool remainder, bool scalarOther) {
  DType d = outDType(e);
  if (!isFloating(d)) e.unsupported("integer operands");
  TermPtr a = e.operand(0, d), b = otherOperand(e, scalarOther, d);
  TermPtr m = e.tc.make(TOp::Fmod, {a, b}, d);
  if (!remainder) return m;
  return e.tc.select(wrongSign(e.tc, m, b, d), e.tc.make(TOp::Add, {m, b}, d), m);
}

TermPtr divMode(OpEnv &e, bool scalarOther) {
  const Attribute &mode = e.node.attr("rounding_mode");
  DType d = outDType(e);
  if (mode.isNone()) {
    if (scalarOther) return binaryArith(e, TOp::Div, true);
    return binaryArith(e, TOp::Div, false);
  }
  if (!isFloating(d)) e.unsupported("rounding_mode=" + mode.str() + " on integers");
  TermPtr a = e.operand(0, d), b = otherOperand(e, scalarOther, d);
  TermPtr q = e.tc.make(TOp::Div, {a, b}, d);
  if (mode.asString() == "trunc") return e.tc.make(TOp::Trunc, {q}, d);
  if (mode.asString() != "floor") e.unsupported("rounding_mode=" + mode.str());
  TermContext &tc = e.tc;
  TermPtr zero = tc.constant(0, d), one = tc.constant(1, d);
  TermPtr m = tc.make(TOp::Fmod, {a, b}, d);
  TermPtr div = tc.make(TOp::Div, {tc.make(TOp::Sub, {a, m}, d), b}, d);
  div = tc.select(wrongSign(tc, m, b, d), tc.make(TOp::Sub, {div, one}, d), div);
  TermPtr f = tc.make(TOp::Floor, {div}, d);
  TermPtr up = tc.make(TOp::Gt, {tc.make(TOp::Sub, {div, f}, d), tc.constant(0.5, d)}, d);
  TermPtr rounded = tc.select(up, tc.make(TOp::Add, {f, one}, d), f);
  TermPtr signedZero = tc.make(TOp::Mul, {zero, q}, d);
  TermPtr nonzero = tc.select(tc.make(TOp::Ne, {div, zero}, d), rounded, signedZero);
  return tc.select(tc.make(TOp::Eq, {b, zero}, d), q, nonzero);
}

TermPtr compare(OpEnv &e, TOp op, bool scalarOther) {
  DType d = e.computeDType();
  TermPtr a = e.operand(0, d);
  TermPtr b = scalarOther ? e.scalar("other", d) : e.operand(1, d);
  return e.tc.make(op, {a, b}, d);
}

TermPtr logical(OpEnv &e, TOp op) {
  TermPtr a = e.operand(0, DType::Bool);
  if (op == TOp::Not) return e.tc.make(TOp::Not, {a}, DType::Bool);
  return e.tc.make(op, {a, e.operand(1, DType::Bool)}, DType::Bool);
}

TermPtr identity(OpEnv &e) { return e.operand(0, outDType(e)); }

TermPtr fillLike(OpEnv &e, double v) { return e.tc.constant(v, outDType(e)); }

}  // namespace

void addElementwise(HandlerTable &t) {
  t["aten::abs"] = [](OpEnv &e) { return unaryFn(e, TOp::Abs); };
  t["aten::neg"] = [](OpEnv &e) { return unaryFn(e, TOp::Neg); };
  for (auto [name, op] : std::vector<std::pair<const char *, TOp>>{
           {"aten::exp", TOp::Exp}, {"aten::log", TOp::Log}, {"aten::log1p", TOp::Log1p},
           {"aten::expm1", TOp::Expm1}, {"aten::sqrt", TOp::Sqrt}, {"aten::rsqrt", TOp::Rsqrt},
           {"aten::tanh", TOp::Tanh}, {"aten::sigmoid", TOp::Sigmoid}, {"aten::sin", TOp::Sin},
           {"aten::cos", TOp::Cos}, {"aten::erf", TOp::Erf}, {"aten::floor", TOp::Floor},
           {"aten::ceil", TOp::Ceil}, {"aten::round", TOp::Round}, {"aten::silu", TOp::Silu},
           {"aten::trunc", TOp::Trunc}, {"aten::tan", TOp::Tan}, {"aten::asin", TOp::Asin},
           {"aten::acos", TOp::Acos}, {"aten::atan", TOp::Atan}, {"aten::sinh", TOp::Sinh},
           {"aten::cosh", TOp::Cosh}, {"aten::asinh", TOp::Asinh}, {"aten::acosh", TOp::Acosh},
           {"aten::atanh", TOp::Atanh}, {"aten::log2", TOp::Log2}, {"aten::log10", TOp::Log10},
           {"aten::erfc", TOp::Erfc}, {"aten::exp2", TOp::Exp2}, {"aten::erfinv", TOp::Erfinv},
           {"aten::lgamma", TOp::Lgamma}, {"aten::digamma", TOp::Digamma}, {"aten::i0", TOp::I0},
           {"aten::special_i0e", TOp::I0e}, {"aten::special_i1", TOp::I1}, {"aten::special_i1e", TOp::I1e},
           {"aten::special_bessel_j0", TOp::BesselJ0}, {"aten::special_bessel_j1", TOp::BesselJ1},
           {"aten::special_spherical_bessel_j0", TOp::SphJ0}}) {
    TOp o = op;
    t[name] = [o](OpEnv &e) {
      bool rounding = o == TOp::Floor || o == TOp::Ceil || o == TOp::Round || o == TOp::Trunc;
      if (!isFloating(e.outType().dtype) && !rounding) e.unsupported("integral input");
      if (!isFloating(e.outType().dtype)) return identity(e);  // floor/ceil/round of ints
      return unaryFn(e, o);
    };
  }
  t["aten::reciprocal"] = [](OpEnv &e) {
    DType d = outDType(e);
    return e.tc.make(TOp::Div, {e.tc.constant(1.0, d), e.operand(0, d)}, d);
  };
  t["aten::sign"] = [](OpEnv &e) {
    DType d = outDType(e);
    TermPtr x = e.operand(0, d), zero = e.tc.constant(0, d);
    if (d == DType::Bool) return x;
    TermPtr pos = e.tc.cast(e.tc.make(TOp::Lt, {zero, x}, d), d);
    TermPtr neg = e.tc.cast(e.tc.make(TOp::Lt, {x, zero}, d), d);
    return e.tc.make(TOp::Sub, {pos, neg}, d);
  };
  t["aten::gelu"] = [](OpEnv &e) {
    const std::string &approx = e.node.attr("approximate").asString();
    if (approx != "none" && approx != "tanh") e.unsupported("approximate=" + approx);
    return unaryFn(e, approx == "none" ? TOp::Gelu : TOp::GeluTanh);
  };
  t["aten::relu"] = [](OpEnv &e) {
    DType d = outDType(e);
    if (d == DType::Bool) e.unsupported("bool input");
    return clampMin(e.tc, e.operand(0, d), e.tc.constant(0, d));
  };
  t["aten::clamp_min"] = [](OpEnv &e) {
    DType d = outDType(e);
    return clampMin(e.tc, e.operand(0, d), e.scalar("min", d));
  };
  t["aten::clamp_max"] = [](OpEnv &e) {
    DType d = outDType(e);
    return clampMax(e.tc, e.operand(0, d), e.scalar("max", d));
  };
  t["aten::clamp"] = [](OpEnv &e) {
    DType d = outDType(e);
    TermPtr x = e.operand(0, d);
    if (!e.node.attr("min").isNone()) x = clampMin(e.tc, x, e.scalar("min", d));
    if (!e.node.attr("max").isNone()) x = clampMax(e.tc, x, e.scalar("max", d));
    return x;
  };
  // clamp(x, min, max) with tensor bounds (either may be None): ATen's kernel
  // is NaN if x or a bound is NaN, else min(max(x, lo), hi): Maximum/Minimum
  // terms (signed-zero ties: ir/bitwise_faithful.cpp).
  t["aten::clamp.Tensor"] = [](OpEnv &e) {
    DType d = outDType(e);
    if (d == DType::Bool) e.unsupported("bool input");
    TermPtr x = e.operand(0, d);
    if (e.node.inputs.at(1)) x = e.tc.make(TOp::Maximum, {x, e.operand(1, d)}, d);
    if (e.node.inputs.at(2)) x = e.tc.make(TOp::Minimum, {x, e.operand(2, d)}, d);
    return x;
  };
  t["aten::hardtanh"] = [](OpEnv &e) {
    DType d = outDType(e);
    return clampMax(e.tc, clampMin(e.tc, e.operand(0, d), e.scalar("min_val", d)), e.scalar("max_val", d));
  };
  t["aten::leaky_relu"] = [](OpEnv &e) {  // Note [bf16 computes in float]
    DType d = outDType(e), c = kernelDType(d);
    TermPtr x = e.operand(0, c);
    TermPtr pos = e.tc.make(TOp::Gt, {x, e.tc.constant(0, c)}, c);
    return e.tc.cast(e.tc.select(pos, x, e.tc.make(TOp::Mul, {x, e.scalar("negative_slope", c)}, c)), d);
  };
  t["aten::threshold"] = [](OpEnv &e) {
    DType d = outDType(e);
    TermPtr x = e.operand(0, d);
    return e.tc.select(e.tc.make(TOp::Le, {x, e.scalar("threshold", d)}, d), e.scalar("value", d), x);
  };
  t["aten::threshold_backward"] = [](OpEnv &e) {
    DType d = outDType(e);
    TermPtr x = e.operand(1, d);
    return e.tc.select(e.tc.make(TOp::Le, {x, e.scalar("threshold", d)}, d), e.tc.constant(0, d),
                       e.operand(0, d));
  };
  t["aten::sigmoid_backward"] = [](OpEnv &e) {  // grad * (1 - y) * y, Note [bf16 computes in float]
    DType d = outDType(e), c = kernelDType(d);
    TermPtr y = e.operand(1, c);
    TermPtr omy = e.tc.make(TOp::Sub, {e.tc.constant(1, c), y}, c);
    return e.tc.cast(e.tc.make(TOp::Mul, {e.tc.make(TOp::Mul, {e.operand(0, c), omy}, c), y}, c), d);
  };
  t["aten::tanh_backward"] = [](OpEnv &e) {  // grad * (1 - y * y)
    DType d = outDType(e);
    TermPtr y = e.operand(1, d);
    TermPtr omy2 = e.tc.make(TOp::Sub, {e.tc.constant(1, d), e.tc.make(TOp::Mul, {y, y}, d)}, d);
    return e.tc.make(TOp::Mul, {e.operand(0, d), omy2}, d);
  };
  for (const char *name : {"aten::clone", "aten::detach", "aten::alias", "aten::lift_fresh_copy",
                           "aten::contiguous", "aten::_to_copy", "aten::to.dtype", "prims::convert_element_type",
                           "aten::type_as", "aten::to.device", "aten::to.dtype_layout"})
    t[name] = identity;
  // native_dropout(x, p, train): with train false (or p = 0) the identity and
  // an all-true mask; in training it is random (no semantics).
  t["aten::native_dropout"] = [](OpEnv &e) {
    const Attribute &train = e.node.attr("train");
    bool training = train.isNone() || train.asBool();
    if (training && e.node.attr("p").asDouble() != 0.0) e.unsupported("dropout in training (random)");
    if (e.output == 1) return e.tc.boolConstant(true);
    return identity(e);
  };
  t["aten::ones_like"] = [](OpEnv &e) { return fillLike(e, 1); };
  t["aten::zeros_like"] = [](OpEnv &e) { return fillLike(e, 0); };
  // fill(self, v): self's shape and dtype, every element v (self is not read).
  t["aten::fill.Scalar"] = [](OpEnv &e) { return e.scalar("value", outDType(e)); };
  t["aten::zero"] = [](OpEnv &e) { return fillLike(e, 0); };  // zero_'s functional form
  t["aten::full_like"] = [](OpEnv &e) { return e.scalar("fill_value", outDType(e)); };
  t["aten::zeros"] = [](OpEnv &e) { return fillLike(e, 0); };
  t["aten::ones"] = [](OpEnv &e) { return fillLike(e, 1); };
  t["aten::full"] = [](OpEnv &e) { return e.scalar("fill_value", outDType(e)); };
  t["aten::new_full"] = [](OpEnv &e) { return e.scalar("fill_value", outDType(e)); };
  t["aten::new_zeros"] = [](OpEnv &e) { return fillLike(e, 0); };
  t["aten::new_ones"] = [](OpEnv &e) { return fillLike(e, 1); };
  t["aten::scalar_tensor"] = [](OpEnv &e) { return e.scalar("s", outDType(e)); };

  t["aten::add.Tensor"] = [](OpEnv &e) { return binaryArith(e, TOp::Add, false); };
  t["aten::sub.Tensor"] = [](OpEnv &e) { return binaryArith(e, TOp::Sub, false); };
  t["aten::rsub.Tensor"] = [](OpEnv &e) { return binaryArith(e, TOp::Sub, false, true); };
  t["aten::mul.Tensor"] = [](OpEnv &e) {
    if (e.outType().dtype == DType::Bool) return logical(e, TOp::And);
    return binaryArith(e, TOp::Mul, false);
  };
  t["aten::div.Tensor"] = [](OpEnv &e) { return binaryArith(e, TOp::Div, false); };
  t["aten::add.Scalar"] = [](OpEnv &e) { return binaryArith(e, TOp::Add, true); };
  t["aten::sub.Scalar"] = [](OpEnv &e) { return binaryArith(e, TOp::Sub, true); };
  t["aten::rsub.Scalar"] = [](OpEnv &e) { return binaryArith(e, TOp::Sub, true, true); };
  t["aten::mul.Scalar"] = [](OpEnv &e) { return binaryArith(e, TOp::Mul, true); };
  t["aten::div.Scalar"] = [](OpEnv &e) { return binaryArith(e, TOp::Div, true); };
  // div with rounding_mode=None is true division (ATen dispatches it to div.Tensor).
  t["aten::div.Tensor_mode"] = [](OpEnv &e) { return divMode(e, false); };
  t["aten::div.Scalar_mode"] = [](OpEnv &e) { return divMode(e, true); };
  t["aten::fmod.Tensor"] = [](OpEnv &e) { return fmodOrRemainder(e, false, false); };
  t["aten::fmod.Scalar"] = [](OpEnv &e) { return fmodOrRemainder(e, false, true); };
  t["aten::remainder.Tensor"] = [](OpEnv &e) { return fmodOrRemainder(e, true, false); };
  t["aten::remainder.Scalar"] = [](OpEnv &e) { return fmodOrRemainder(e, true, true); };
  t["aten::maximum"] = [](OpEnv &e) { return binaryArith(e, TOp::Maximum, false); };
  t["aten::max.other"] = t.at("aten::maximum");  // the same kernel
  t["aten::min.other"] = [](OpEnv &e) { return binaryArith(e, TOp::Minimum, false); };
  // prims::fma(a, b, c) = a * b + c rounded once: as a term a * b + c (two roundings,
  // exact over the reals; ir/bitwise_faithful.cpp holds it real-only).
  t["prims::fma"] = [](OpEnv &e) {
    DType d = outDType(e);
    if (!isFloating(d)) e.unsupported("integer fma");
    return e.tc.make(TOp::Add, {e.tc.make(TOp::Mul, {e.operand(0, d), e.operand(1, d)}, d), e.operand(2, d)}, d);
  };
  t["aten::minimum"] = [](OpEnv &e) { return binaryArith(e, TOp::Minimum, false); };
  t["aten::addcmul"] = [](OpEnv &e) { return addcOp(e, TOp::Mul); };
  t["aten::addcdiv"] = [](OpEnv &e) { return addcOp(e, TOp::Div); };
  t["aten::atan2"] = [](OpEnv &e) { return binaryArith(e, TOp::Atan2, false); };
  t["aten::hypot"] = [](OpEnv &e) { return binaryArith(e, TOp::Hypot, false); };
  t["aten::igamma"] = [](OpEnv &e) { return binaryArith(e, TOp::Igamma, false); };
  t["aten::igammac"] = [](OpEnv &e) { return binaryArith(e, TOp::Igammac, false); };
  t["aten::special_zeta"] = [](OpEnv &e) { return binaryArith(e, TOp::Zeta, false); };
  t["aten::gcd"] = [](OpEnv &e) {
    if (!isIntegral(outDType(e))) e.unsupported("gcd of a non-integral dtype");
    return binaryArith(e, TOp::Gcd, false);
  };
  // Note [Shifts]
  // bitwise_left_shift and bitwise_right_shift (and __lshift__, __rshift__; prims::shift_left
  // and shift_right_arithmetic run them) on integers: ATen 1.13's CPU kernels compute
  // (unsigned)a << b wrapped to the dtype, and a >> b arithmetic, which is exact for an amount
  // b in [0, bits) (checked against LibTorch on u8, i8, i16, i32 and i64: the semantics audit
  // runs it). Outside that range C++ leaves the result undefined, and ATen's gives different
  // values in its vectorized loop and its scalar tail, so they depend on the element's
  // position: only a constant amount in range has semantics. Uninterpreted in proofs (the
  // same call on the same operands is the same value); the evaluator computes them.
  for (auto [name, op] : std::vector<std::pair<std::string, TOp>>{
           {"bitwise_left_shift", TOp::ShiftLeft}, {"bitwise_right_shift", TOp::ShiftRight},
           {"__lshift__", TOp::ShiftLeft}, {"__rshift__", TOp::ShiftRight}}) {
    TOp o = op;
    auto shift = [o](OpEnv &e, bool scalarOther) {
      DType d = outDType(e);
      if (!isIntegral(d) || d == DType::Bool || d == DType::U64) e.unsupported("a shift of a non-integer dtype");
      TermPtr amount = scalarOther ? e.scalar("other", d) : e.operand(1, d);
      if (amount->op != TOp::Const || amount->inum < 0 || amount->inum >= dtypeBits(d))
        e.unsupported("a shift amount not known to lie in [0, " + std::to_string(dtypeBits(d)) +
                      ") (outside it ATen's result depends on the element's position: Note [Shifts])");
      return e.tc.make(o, {e.operand(0, d), amount}, d);
    };
    bool dunder = name[0] == '_';
    t["aten::" + name + ".Tensor"] = [shift](OpEnv &e) { return shift(e, false); };
    t["aten::" + name + (dunder ? ".Scalar" : ".Tensor_Scalar")] = [shift](OpEnv &e) { return shift(e, true); };
  }
  // fmax/fmin ignore a NaN operand (IEEE maxNum); on integers they are maximum/minimum.
  t["aten::fmax"] = [](OpEnv &e) {
    return binaryArith(e, isFloating(outDType(e)) ? TOp::Fmax : TOp::Maximum, false);
  };
  t["aten::fmin"] = [](OpEnv &e) {
    return binaryArith(e, isFloating(outDType(e)) ? TOp::Fmin : TOp::Minimum, false);
  };
  t["aten::nextafter"] = [](OpEnv &e) {
    DType d = outDType(e);
    if (d != DType::F32 && d != DType::F64) e.unsupported("nextafter in " + std::string(dtypeName(d)));
    return binaryArith(e, TOp::Nextafter, false);
  };
  // pow(Scalar self, Tensor exponent): ATen makes self a wrapped number and
  // runs pow.Tensor_Tensor (self == 1 gives ones).
  t["aten::pow.Scalar"] = [](OpEnv &e) {
    DType d = outDType(e);
    if (!isFloating(d)) e.unsupported("integral pow");
    const Attribute &base = e.node.attr("self");
    if (base.isScalar() && base.asDouble() == 1.0) return e.tc.constant(1, d);
    return e.tc.make(TOp::PowT, {e.scalar("self", d), e.operand(0, d)}, d);
  };
  t["aten::pow.Tensor_Tensor"] = [](OpEnv &e) {
    if (!isFloating(e.outType().dtype)) e.unsupported("integral pow");
    return binaryArith(e, TOp::PowT, false);
  };
  t["aten::pow.Tensor_Scalar"] = [](OpEnv &e) {
    DType d = outDType(e);
    if (!isFloating(d)) e.unsupported("integral pow");
    double c = e.node.attr("exponent").asDouble();
    // ATen's f16 kernel is std::pow in float, rounded once: x**3 is not (x*x rounded)*x, and
    // pow(-inf, 0.5) is inf where sqrt gives NaN. x**0, x**1, x**2 and x**-1 are exact
    // either way (measured by the semantics audit).
    if (d == DType::F16 && c != 0 && c != 1 && c != 2 && c != -1) {
      TermPtr x = e.operand(0, DType::F32);
      return e.tc.cast(e.tc.make(TOp::PowT, {x, e.tc.constant(c, DType::F32)}, DType::F32), d);
    }
    return e.tc.make(TOp::PowC, {e.operand(0, d)}, d, c);
  };
  for (auto [name, op] : std::vector<std::pair<const char *, TOp>>{
           {"eq", TOp::Eq}, {"ne", TOp::Ne}, {"lt", TOp::Lt}, {"le", TOp::Le}, {"gt", TOp::Gt}, {"ge", TOp::Ge}}) {
    TOp o = op;
    t[std::string("aten::") + name + ".Tensor"] = [o](OpEnv &e) { return compare(e, o, false); };
    t[std::string("aten::") + name + ".Scalar"] = [o](OpEnv &e) { return compare(e, o, true); };
  }
  t["aten::logical_and"] = [](OpEnv &e) { return logical(e, TOp::And); };
  t["aten::logical_or"] = [](OpEnv &e) { return logical(e, TOp::Or); };
  t["aten::logical_xor"] = [](OpEnv &e) { return logical(e, TOp::Xor); };
  t["aten::logical_not"] = [](OpEnv &e) { return logical(e, TOp::Not); };
  // ~x: logical not on bool (`~mask`); -x - 1 in two's complement on integers.
  t["aten::bitwise_not"] = [](OpEnv &e) {
    DType d = outDType(e);
    if (d == DType::Bool) return logical(e, TOp::Not);
    if (!isIntegral(d)) e.unsupported("bitwise_not of a floating tensor");
    TermPtr minusX = e.tc.make(TOp::Neg, {e.operand(0, d)}, d);
    return e.tc.make(TOp::Sub, {minusX, e.tc.constant(1, d)}, d);
  };
  t["aten::isnan"] = [](OpEnv &e) {
    DType d = e.inType(0).dtype;
    if (!isFloating(d)) return e.tc.boolConstant(false);
    return e.tc.make(TOp::IsNan, {e.operand(0, d)}, d);
  };
  t["aten::isinf"] = [](OpEnv &e) {
    DType d = e.inType(0).dtype;
    if (!isFloating(d)) return e.tc.boolConstant(false);
    return e.tc.make(TOp::IsInf, {e.operand(0, d)}, d);
  };
  t["aten::isfinite"] = [](OpEnv &e) {
    DType d = e.inType(0).dtype;
    if (!isFloating(d)) return e.tc.boolConstant(true);
    TermPtr x = e.operand(0, d);
    TermPtr nonFinite = e.tc.make(TOp::Or, {e.tc.make(TOp::IsNan, {x}, d), e.tc.make(TOp::IsInf, {x}, d)}, DType::Bool);
    return e.tc.make(TOp::Not, {nonFinite}, DType::Bool);
  };
  // signbit(x) = x < 0, or x is -0 (1 / -0 = -inf). A NaN's sign bit is not
  // modelled (the term says false): ir/bitwise_faithful.cpp holds it real-only.
  t["aten::signbit"] = [](OpEnv &e) {
    DType d = e.inType(0).dtype;
    TermPtr x = e.operand(0, d), zero = e.tc.constant(0, d);
    TermPtr negative = e.tc.make(TOp::Lt, {x, zero}, d);
    if (!isFloating(d)) return negative;
    TermPtr negZero = e.tc.make(TOp::And, {e.tc.make(TOp::Eq, {x, zero}, d),
                                           e.tc.make(TOp::Lt, {e.tc.make(TOp::Div, {e.tc.constant(1, d), x}, d), zero}, d)},
                                DType::Bool);
    return e.tc.make(TOp::Or, {negative, negZero}, DType::Bool);
  };
  // &, |, ^ on bool tensors (masks); integer bit operations have no term yet.
  for (auto [name, op] : std::vector<std::pair<const char *, TOp>>{
           {"and", TOp::And}, {"or", TOp::Or}, {"xor", TOp::Xor}}) {
    TOp o = op;
    auto bitwise = [o](OpEnv &e, bool scalarOther) {
      if (e.outType().dtype != DType::Bool) e.unsupported("integer bit operations");
      TermPtr b = scalarOther ? e.scalar("other", DType::Bool) : e.operand(1, DType::Bool);
      return e.tc.make(o, {e.operand(0, DType::Bool), b}, DType::Bool);
    };
    t[std::string("aten::bitwise_") + name + ".Tensor"] = [bitwise](OpEnv &e) { return bitwise(e, false); };
    t[std::string("aten::bitwise_") + name + ".Scalar"] = [bitwise](OpEnv &e) { return bitwise(e, true); };
    t[std::string("aten::__") + name + "__.Tensor"] = [bitwise](OpEnv &e) { return bitwise(e, false); };
  }
  t["aten::where.ScalarOther"] = [](OpEnv &e) {
    DType d = outDType(e);
    return e.tc.select(e.operand(0, DType::Bool), e.operand(1, d), e.scalar("other", d));
  };
  t["aten::where.ScalarSelf"] = [](OpEnv &e) {
    DType d = outDType(e);
    return e.tc.select(e.operand(0, DType::Bool), e.scalar("self", d), e.operand(1, d));
  };
  t["aten::where.self"] = [](OpEnv &e) {
    DType d = outDType(e);
    return e.tc.select(e.operand(0, DType::Bool), e.operand(1, d), e.operand(2, d));
  };
  t["aten::masked_fill.Scalar"] = [](OpEnv &e) {
    DType d = outDType(e);
    return e.tc.select(e.operand(1, DType::Bool), e.scalar("value", d), e.operand(0, d));
  };
  t["aten::masked_fill.Tensor"] = [](OpEnv &e) {
    DType d = outDType(e);
    if (e.inType(2).rank() != 0) e.unsupported("a value that is not 0-dim");
    return e.tc.select(e.operand(1, DType::Bool), e.operandAt(2, {}, d), e.operand(0, d));
  };
}

}  // namespace torchtv::sem
