// The audit's cases: every op with semantics in src/sem at the dtypes its
// semantics claim, with empty, size-1, 0-dim and broadcast shapes.
#include "tests/audit/audit_cases.h"

namespace torchtv::audit {

namespace {

using Dtypes = std::vector<std::string>;
const Dtypes kF = {"f32", "f64", "f16", "bf16"};
const Dtypes kFI = {"f32", "f64", "f16", "bf16", "i32", "i64"};
const Dtypes kFIB = {"f32", "f64", "f16", "bf16", "i32", "i64", "bool"};
const Dtypes kF32 = {"f32", "f64"};
const Dtypes kI = {"u8", "i8", "i16", "i32", "i64"};
// [2,37]: ATen's vectorized loop and its scalar tail; [1], [0,3], []: size-1, empty, 0-dim.
const std::vector<std::string> kShapes = {"[2,37]", "[1]", "[0,3]", "[]"};

std::string attrs(const std::string &a) { return a.empty() ? "" : " {" + a + "}"; }

AuditCase unary(const std::string &op, const Dtypes &d, const std::string &a = "", const std::string &out = "$T") {
  return {op, d,
          "(%x: $T$S) -> (" + out + "$S) {\n  %y: " + out + "$S = " + op + "(%x)" + attrs(a) + "\n  return %y\n}",
          kShapes, true};
}

AuditCase binary(const std::string &op, const Dtypes &d, const std::string &a = "", const std::string &out = "$T") {
  return {op, d,
          "(%a: $T$S, %b: $T$S) -> (" + out + "$S) {\n  %y: " + out + "$S = " + op + "(%a, %b)" + attrs(a) +
              "\n  return %y\n}",
          kShapes, true};
}

// Broadcasting: [3,1,5] against [4,1] gives [3,4,5].
AuditCase broadcast(const std::string &op, const Dtypes &d, const std::string &a = "", const std::string &out = "$T") {
  return {op, d,
          "(%a: $T[3,1,5], %b: $T[4,1]) -> (" + out + "[3,4,5]) {\n  %y: " + out + "[3,4,5] = " + op + "(%a, %b)" +
              attrs(a) + "\n  return %y\n}",
          {""}, false};
}

AuditCase fixed(const std::string &op, const Dtypes &d, const std::string &graph) { return {op, d, graph, {""}, false}; }

std::vector<AuditCase> build() {
  std::vector<AuditCase> c;
  // ---- elementwise, unary
  for (const char *op : {"aten::abs", "aten::neg", "aten::relu", "aten::sign"}) c.push_back(unary(op, kFI));
  for (const char *op : {"aten::exp", "aten::log", "aten::log1p", "aten::expm1", "aten::sqrt", "aten::rsqrt",
                         "aten::tanh", "aten::sigmoid", "aten::sin", "aten::cos", "aten::erf", "aten::reciprocal",
                         "aten::silu"})
    c.push_back(unary(op, kF));
  for (const char *op : {"aten::floor", "aten::ceil", "aten::round", "aten::trunc"}) c.push_back(unary(op, kFI));
  for (const char *op : {"aten::tan", "aten::asin", "aten::acos", "aten::atan", "aten::sinh", "aten::cosh",
                         "aten::asinh", "aten::acosh", "aten::atanh", "aten::log2", "aten::log10"})
    c.push_back(unary(op, kF));
  c.push_back(unary("aten::isinf", kFI, "", "bool"));
  // Note [Special functions] (src/eval/special_functions.h): the prims torch._refs uses.
  for (const char *op : {"aten::erfc", "aten::exp2", "aten::erfinv", "aten::lgamma", "aten::digamma", "aten::i0",
                         "aten::special_i0e", "aten::special_i1", "aten::special_i1e", "aten::special_bessel_j0",
                         "aten::special_bessel_j1", "aten::special_spherical_bessel_j0"})
    c.push_back(unary(op, kF));
  c.push_back(unary("aten::isfinite", kFI, "", "bool"));
  c.push_back(unary("aten::signbit", kFI, "", "bool"));
  c.push_back(unary("aten::pow.Scalar", kF, "self=2.5"));
  c.push_back(unary("aten::pow.Scalar", kF, "self=-0.5"));
  c.push_back(unary("aten::fmod.Scalar", kF, "other=1.5"));
  c.push_back(unary("aten::remainder.Scalar", kF, "other=-2"));
  c.push_back(unary("aten::div.Scalar_mode", kF, "other=3, rounding_mode=\"trunc\""));
  c.push_back(unary("aten::div.Scalar_mode", kF, "other=-0.5, rounding_mode=\"floor\""));
  for (const char *op : {"aten::bitwise_and.Scalar", "aten::bitwise_or.Scalar", "aten::bitwise_xor.Scalar"})
    c.push_back(unary(op, {"bool"}, "other=true"));
  // Note [Shifts]: constant amounts in [0, bits), the edges included.
  for (const char *op : {"aten::bitwise_left_shift.Tensor_Scalar", "aten::bitwise_right_shift.Tensor_Scalar"})
    for (const char *amount : {"other=0", "other=1", "other=5", "other=7"})
      c.push_back(unary(op, kI, amount));
  for (const char *op : {"aten::bitwise_left_shift.Tensor_Scalar", "aten::bitwise_right_shift.Tensor_Scalar"})
    c.push_back(unary(op, {"i64"}, "other=63"));
  for (const char *op : {"aten::__lshift__.Scalar", "aten::__rshift__.Scalar"}) c.push_back(unary(op, kI, "other=3"));
  for (const char *op : {"aten::bitwise_left_shift.Tensor", "aten::bitwise_right_shift.Tensor", "aten::__lshift__.Tensor",
                         "aten::__rshift__.Tensor"})
    c.push_back(fixed(op, kI,
                      "(%x: $T[2,9]) -> ($T[2,9]) {\n  %b: $T[] = aten::full() {size=[], fill_value=6, dtype=$T, layout=none, "
                      "device=none, pin_memory=none}\n  %y: $T[2,9] = " + std::string(op) + "(%x, %b)\n  return %y\n}"));
  c.push_back(unary("aten::gelu", kF, "approximate=\"none\""));
  c.push_back(unary("aten::gelu", kF, "approximate=\"tanh\""));
  for (const char *op : {"aten::clone", "aten::detach", "aten::alias", "aten::lift_fresh_copy", "aten::contiguous"})
    c.push_back(unary(op, kFIB));
  c.push_back(unary("aten::logical_not", kFIB, "", "bool"));
  c.push_back(unary("aten::isnan", kFI, "", "bool"));
  c.push_back(unary("aten::bitwise_not", {"i32", "i64", "bool"}));
  c.push_back(unary("aten::clamp", kFI, "min=-1, max=2"));
  c.push_back(unary("aten::clamp", kF, "min=-0.5, max=none"));
  c.push_back(unary("aten::clamp_min", kFI, "min=0"));
  c.push_back(unary("aten::clamp_max", kFI, "max=1"));
  c.push_back(unary("aten::leaky_relu", kF, "negative_slope=0.01"));
  c.push_back(unary("aten::hardtanh", kF, "min_val=-1, max_val=1"));
  c.push_back(unary("aten::threshold", kFI, "threshold=1, value=-2"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=0"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=1"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=2"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=3"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=0.5"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=-1"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=-2"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=-0.5"));
  c.push_back(unary("aten::pow.Tensor_Scalar", kF, "exponent=2.5"));
  for (const char *op : {"aten::add.Scalar", "aten::sub.Scalar", "aten::mul.Scalar", "aten::rsub.Scalar"}) {
    c.push_back(unary(op, kFI, "other=3"));
    c.push_back(unary(op, kF, "other=0.1"));
  }
  c.push_back(unary("aten::add.Scalar", kF, "other=0.1, alpha=2"));
  c.push_back(unary("aten::div.Scalar", kF, "other=3"));
  c.push_back(unary("aten::div.Scalar", kF, "other=0.1"));
  for (const char *op : {"aten::eq.Scalar", "aten::ne.Scalar", "aten::lt.Scalar", "aten::le.Scalar", "aten::gt.Scalar",
                         "aten::ge.Scalar"}) {
    c.push_back(unary(op, kFI, "other=1", "bool"));
    c.push_back(unary(op, kF, "other=0.1", "bool"));
  }
  c.push_back(unary("aten::fill.Scalar", kFI, "value=3"));
  c.push_back(unary("aten::fill.Scalar", kF, "value=0.1"));
  c.push_back(unary("aten::ones_like", kFIB));
  c.push_back(unary("aten::zeros_like", kFIB));
  c.push_back(unary("aten::zero", kFIB));
  // copy_'s functional form: src broadcast to self's shape and converted to its dtype.
  c.push_back(fixed("aten::copy", kF,
                    "(%x: $T[3,4], %s: f32[4]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::copy(%x, %s)\n  return %y\n}"));
  c.push_back(fixed("aten::copy", kFIB,
                    "(%x: $T[3,4], %s: i64[3,1]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::copy(%x, %s)\n  return %y\n}"));
  c.push_back(fixed("aten::fill.Tensor", kFIB,
                    "(%x: $T[3,4], %v: $T[]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::fill.Tensor(%x, %v)\n  return %y\n}"));
  c.push_back(unary("aten::full_like", kF, "fill_value=0.1"));
  c.push_back(unary("aten::_to_copy", kFIB, "dtype=f32", "f32"));
  c.push_back(unary("aten::_to_copy", kF, "dtype=f16", "f16"));
  c.push_back(unary("aten::_to_copy", kF, "dtype=bf16", "bf16"));
  c.push_back(unary("aten::_to_copy", kF, "dtype=i64", "i64"));
  c.push_back(unary("aten::_to_copy", kFI, "dtype=bool", "bool"));
  c.push_back(unary("aten::to.dtype", kFI, "dtype=f64", "f64"));
  c.push_back(unary("aten::to.device", kFI, "device=\"cpu\", dtype=f32", "f32"));
  c.push_back(unary("aten::to.dtype_layout", kFI, "dtype=f64", "f64"));
  c.push_back(unary("prims::convert_element_type", kFI, "dtype=f32", "f32"));
  // ---- elementwise, binary
  for (const char *op : {"aten::add.Tensor", "aten::sub.Tensor", "aten::mul.Tensor", "aten::maximum",
                         "aten::minimum", "aten::rsub.Tensor"}) {
    c.push_back(binary(op, kFI));
    c.push_back(broadcast(op, kFI));
  }
  c.push_back(binary("aten::mul.Tensor", {"bool"}));
  for (const char *op : {"aten::hypot", "aten::igamma", "aten::igammac", "aten::special_zeta"}) c.push_back(binary(op, kF));
  c.push_back(binary("aten::gcd", {"i32", "i64"}));
  for (const char *op : {"aten::fmax", "aten::fmin"}) {
    c.push_back(binary(op, kFI));
    c.push_back(broadcast(op, kFI));
  }
  c.push_back(binary("aten::nextafter", kF32));
  c.push_back(binary("aten::add.Tensor", kF, "alpha=2"));
  // Note [Scaled operands of add and sub]: alpha not a power of two (a fused multiply-add; real-only).
  c.push_back(binary("aten::add.Tensor", kF, "alpha=0.01"));
  c.push_back(binary("aten::sub.Tensor", kF, "alpha=0.9"));
  for (const char *op : {"aten::addcmul", "aten::addcdiv"})
    c.push_back({op, kF,
                 std::string("(%a: $T$S, %b: $T$S, %c: $T$S) -> ($T$S) {\n  %y: $T$S = ") + op +
                     "(%a, %b, %c) {value=-0.3}\n  return %y\n}",
                 kShapes, true});
  c.push_back(binary("aten::sub.Tensor", kFI, "alpha=-1"));
  c.push_back(binary("aten::div.Tensor", kF));
  c.push_back(broadcast("aten::div.Tensor", kF));
  c.push_back(binary("aten::div.Tensor_mode", kF, "rounding_mode=none"));
  c.push_back(binary("aten::pow.Tensor_Tensor", kF));
  c.push_back(binary("aten::div.Tensor_mode", kF, "rounding_mode=\"trunc\""));
  c.push_back(binary("aten::max.other", kFI));
  c.push_back(binary("aten::min.other", kFI));
  c.push_back({"prims::fma", kF,
               "(%a: $T$S, %b: $T$S, %c: $T$S) -> ($T$S) {\n  %y: $T$S = prims::fma(%a, %b, %c)\n  return %y\n}", kShapes, true});
  c.push_back(fixed("aten::where.ScalarOther", kFI, "(%m: bool[3,5], %x: $T[5]) -> ($T[3,5]) {\n  %y: $T[3,5] = aten::where.ScalarOther(%m, %x) {other=-2}\n  return %y\n}"));
  c.push_back(fixed("aten::where.ScalarSelf", kF, "(%m: bool[3,5], %x: $T[5]) -> ($T[3,5]) {\n  %y: $T[3,5] = aten::where.ScalarSelf(%m, %x) {self=0.1}\n  return %y\n}"));
  c.push_back(binary("aten::div.Tensor_mode", kF, "rounding_mode=\"floor\""));
  c.push_back(binary("aten::fmod.Tensor", kF));
  c.push_back(binary("aten::remainder.Tensor", kF));
  c.push_back(broadcast("aten::remainder.Tensor", kF));
  for (const char *op : {"aten::bitwise_and.Tensor", "aten::bitwise_or.Tensor", "aten::bitwise_xor.Tensor",
                         "aten::__and__.Tensor", "aten::__or__.Tensor", "aten::__xor__.Tensor"})
    c.push_back(binary(op, {"bool"}));
  c.push_back({"aten::clamp.Tensor", kFI,
               "(%x: $T$S, %a: $T$S, %b: $T$S) -> ($T$S) {\n  %y: $T$S = aten::clamp.Tensor(%x, %a, %b)\n  return %y\n}",
               kShapes, true});
  c.push_back(fixed("aten::clamp.Tensor", kF, "(%x: $T[3,5], %a: $T[5]) -> ($T[3,5]) {\n  %y: $T[3,5] = aten::clamp.Tensor(%x, %a, none)\n  return %y\n}"));
  c.push_back(binary("aten::atan2", kF));
  for (const char *op : {"aten::eq.Tensor", "aten::ne.Tensor", "aten::lt.Tensor", "aten::le.Tensor", "aten::gt.Tensor",
                         "aten::ge.Tensor"}) {
    c.push_back(binary(op, kFIB, "", "bool"));
    c.push_back(broadcast(op, kFI, "", "bool"));
  }
  for (const char *op : {"aten::logical_and", "aten::logical_or", "aten::logical_xor"})
    c.push_back(binary(op, kFIB, "", "bool"));
  c.push_back(binary("aten::sigmoid_backward", kF));
  c.push_back(binary("aten::tanh_backward", kF));
  c.push_back(binary("aten::silu_backward", kF));
  c.push_back(binary("aten::gelu_backward", kF, "approximate=\"none\""));
  c.push_back(binary("aten::gelu_backward", kF, "approximate=\"tanh\""));
  c.push_back(binary("aten::threshold_backward", kF, "threshold=0"));
  c.push_back({"aten::mse_loss_backward", kF,
               "(%g: $T$S, %a: $T$S, %b: $T$S) -> ($T$S) {\n  %y: $T$S = aten::mse_loss_backward(%g, %a, %b) "
               "{reduction=0}\n  return %y\n}",
               kShapes, true});
  c.push_back(fixed("aten::mse_loss_backward", kF,
                    "(%g: $T[], %a: $T[3,5], %b: $T[3,5]) -> ($T[3,5]) {\n"
                    "  %y: $T[3,5] = aten::mse_loss_backward(%g, %a, %b) {reduction=1}\n  return %y\n}"));
  c.push_back(binary("aten::mse_loss", kF, "reduction=0"));
  c.push_back(fixed("aten::mse_loss", kF,
                    "(%a: $T[3,5], %b: $T[3,5]) -> ($T[]) {\n  %y: $T[] = aten::mse_loss(%a, %b) {reduction=1}\n  return %y\n}"));
  c.push_back(fixed("aten::where.self", kFIB,
                    "(%m: bool[3,1,5], %a: $T[4,1], %b: $T[5]) -> ($T[3,4,5]) {\n"
                    "  %y: $T[3,4,5] = aten::where.self(%m, %a, %b)\n  return %y\n}"));
  c.push_back(fixed("aten::masked_fill.Scalar", kFI,
                    "(%x: $T[3,5], %m: bool[5]) -> ($T[3,5]) {\n"
                    "  %y: $T[3,5] = aten::masked_fill.Scalar(%x, %m) {value=-2}\n  return %y\n}"));
  c.push_back(fixed("aten::masked_fill.Tensor", kF,
                    "(%x: $T[3,5], %m: bool[3,5], %v: $T[]) -> ($T[3,5]) {\n"
                    "  %y: $T[3,5] = aten::masked_fill.Tensor(%x, %m, %v)\n  return %y\n}"));
  // ---- factories
  c.push_back(fixed("aten::full", kFI, "() -> ($T[2,3]) {\n  %y: $T[2,3] = aten::full() {size=[2,3], fill_value=-0.0, dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::zeros", kFIB, "() -> ($T[0,3]) {\n  %y: $T[0,3] = aten::zeros() {size=[0,3], dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::ones", kFIB, "() -> ($T[4]) {\n  %y: $T[4] = aten::ones() {size=[4], dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::new_full", kF, "(%x: $T[2]) -> ($T[3]) {\n  %y: $T[3] = aten::new_full(%x) {size=[3], fill_value=0.1}\n  return %y\n}"));
  c.push_back(fixed("aten::new_zeros", kFI, "(%x: $T[2]) -> ($T[3]) {\n  %y: $T[3] = aten::new_zeros(%x) {size=[3]}\n  return %y\n}"));
  c.push_back(fixed("aten::scalar_tensor", kF, "() -> ($T[]) {\n  %y: $T[] = aten::scalar_tensor() {s=0.1, dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("prim::constant", kF, "() -> ($T[3]) {\n  %y: $T[3] = prim::constant() {data=[0.1, -0.0, inf]}\n  return %y\n}"));
  // LibTorch has no prims (they are Python ops): listed, not run; tests/oracle/run_refs_oracle.py
  // checks them against torch._refs.
  c.push_back(fixed("prims::broadcast_in_dim", kFIB, "(%x: $T[5,1]) -> ($T[3,5,4]) {\n  %y: $T[3,5,4] = prims::broadcast_in_dim(%x) {shape=[3,5,4], broadcast_dimensions=[1,2]}\n  return %y\n}"));
  c.push_back(fixed("prims::collapse_view", kFIB, "(%x: $T[2,3,4]) -> ($T[6,4]) {\n  %y: $T[6,4] = prims::collapse_view(%x) {start=0, end=2}\n  return %y\n}"));
  c.push_back(fixed("prims::split_dim", kFIB, "(%x: $T[6,4]) -> ($T[2,3,4]) {\n  %y: $T[2,3,4] = prims::split_dim(%x) {dim=0, outer_length=2}\n  return %y\n}"));
  c.push_back(fixed("prims::cat", kFIB, "(%a: $T[2,3], %b: $T[2,4]) -> ($T[2,7]) {\n  %y: $T[2,7] = prims::cat(%a, %b) {dim=1}\n  return %y\n}"));
  c.push_back(fixed("prims::arange", {"i64"}, "() -> ($T[4]) {\n  %y: $T[4] = prims::arange() {start=1, end=9, step=2, dtype=$T, device=\"cpu\", requires_grad=false}\n  return %y\n}"));
  c.push_back(fixed("prims::iota", {"i64", "i32"}, "() -> ($T[4]) {\n  %y: $T[4] = prims::iota() {length=4, start=3, step=-2, dtype=$T, device=\"cpu\", requires_grad=false}\n  return %y\n}"));
  // torch >= 2.0 ops LibTorch 1.13 lacks ("not run"; tests/unit/test_registry.cpp evaluates them).
  c.push_back(fixed("aten::sym_size.int", kF, "(%x: $T[4,3]) -> (i64[]) {\n  %y: i64[] = aten::sym_size.int(%x) {dim=1}\n  return %y\n}"));
  c.push_back(fixed("aten::sym_numel", kF, "(%x: $T[4,3]) -> (i64[]) {\n  %y: i64[] = aten::sym_numel(%x)\n  return %y\n}"));
  c.push_back(fixed("prims::item", kF, "(%x: $T[1]) -> ($T[]) {\n  %y: $T[] = prims::item(%x)\n  return %y\n}"));
  c.push_back(fixed("prims::maximum_value", kFI, "() -> ($T[]) {\n  %y: $T[] = prims::maximum_value() {dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("prims::prod", kF, "(%x: $T[4,6]) -> ($T[4]) {\n  %y: $T[4] = prims::prod(%x) {dims=[1], output_dtype=none}\n  return %y\n}"));
  c.push_back(fixed("aten::_local_scalar_dense", kF, "(%x: $T[1]) -> ($T[]) {\n  %y: $T[] = aten::_local_scalar_dense(%x)\n  return %y\n}"));
  // ---- reductions
  const std::string red = "(%x: $T[4,6]) -> ($T[4]) {\n  %y: $T[4] = OP(%x) {dim=[1], keepdim=false}\n  return %y\n}";
  auto reduce = [&](const std::string &op, const Dtypes &d, std::string text) {
    text.replace(text.find("OP"), 2, op);
    c.push_back(fixed(op, d, text));
  };
  reduce("aten::sum.dim_IntList", kF, red);
  reduce("aten::sum.dim_IntList", {"i64"}, red);
  reduce("aten::mean.dim", kF, red);
  reduce("aten::amax", kFI, red);
  reduce("aten::amin", kFI, red);
  reduce("aten::logsumexp", kF, red);
  reduce("aten::var.dim", kF, "(%x: $T[4,6]) -> ($T[4,1]) {\n  %y: $T[4,1] = OP(%x) {dim=[1], unbiased=true, keepdim=true}\n  return %y\n}");
  reduce("aten::var.correction", kF, "(%x: $T[4,6]) -> ($T[]) {\n  %y: $T[] = OP(%x) {dim=none, correction=0}\n  return %y\n}");
  reduce("aten::sum", kF, "(%x: $T[0,3]) -> ($T[]) {\n  %y: $T[] = OP(%x)\n  return %y\n}");
  reduce("aten::sum", kF, "(%x: $T[40]) -> ($T[]) {\n  %y: $T[] = OP(%x)\n  return %y\n}");
  reduce("aten::mean", kF, "(%x: $T[3,40]) -> ($T[]) {\n  %y: $T[] = OP(%x)\n  return %y\n}");
  reduce("aten::max.dim", kF, "(%x: $T[4,6]) -> ($T[4], i64[4]) {\n  %y: $T[4], %i: i64[4] = OP(%x) {dim=1}\n  return %y, %i\n}");
  reduce("aten::min.dim", kF, "(%x: $T[4,6]) -> ($T[4], i64[4]) {\n  %y: $T[4], %i: i64[4] = OP(%x) {dim=1}\n  return %y, %i\n}");
  reduce("aten::cumsum", {"f32", "f64", "f16", "bf16", "i64"}, "(%x: $T[4,6]) -> ($T[4,6]) {\n  %y: $T[4,6] = OP(%x) {dim=1}\n  return %y\n}");
  reduce("aten::cumsum", kF, "(%x: $T[5,2]) -> ($T[5,2]) {\n  %y: $T[5,2] = OP(%x) {dim=-2}\n  return %y\n}");
  // Positions as values (Note [Positions as values] in src/sem/reduction.cpp): ties and NaN pick the first.
  reduce("aten::max.dim", kFI, "(%x: $T[3,5]) -> ($T[1,5], i64[1,5]) {\n  %y: $T[1,5], %i: i64[1,5] = OP(%x) {dim=0, keepdim=true}\n  return %y, %i\n}");
  for (const char *op : {"aten::argmax", "aten::argmin"}) {
    reduce(op, kFI, "(%x: $T[4,6]) -> (i64[4]) {\n  %y: i64[4] = OP(%x) {dim=1}\n  return %y\n}");
    reduce(op, kFI, "(%x: $T[4,6]) -> (i64[1,6]) {\n  %y: i64[1,6] = OP(%x) {dim=-2, keepdim=true}\n  return %y\n}");
    reduce(op, kFI, "(%x: $T[3,5]) -> (i64[]) {\n  %y: i64[] = OP(%x) {dim=none}\n  return %y\n}");
    reduce(op, kF, "(%x: $T[]) -> (i64[]) {\n  %y: i64[] = OP(%x) {dim=none}\n  return %y\n}");
    reduce(op, kF, "(%x: $T[0,3]) -> (i64[0]) {\n  %y: i64[0] = OP(%x) {dim=1}\n  return %y\n}");
  }
  reduce("aten::prod", {"f32", "f64", "bf16"}, "(%x: $T[3,5]) -> ($T[]) {\n  %y: $T[] = OP(%x)\n  return %y\n}");
  reduce("aten::prod", {"i32", "i64", "bool"}, "(%x: $T[3,5]) -> (i64[]) {\n  %y: i64[] = OP(%x)\n  return %y\n}");
  reduce("aten::prod", {"f32"}, "(%x: $T[0,3]) -> ($T[]) {\n  %y: $T[] = OP(%x)\n  return %y\n}");
  reduce("aten::prod.dim_int", {"f32", "f64", "bf16"}, "(%x: $T[4,6]) -> ($T[4]) {\n  %y: $T[4] = OP(%x) {dim=1}\n  return %y\n}");
  reduce("aten::prod.dim_int", {"i64"}, "(%x: $T[4,6]) -> ($T[1,6]) {\n  %y: $T[1,6] = OP(%x) {dim=0, keepdim=true}\n  return %y\n}");
  // Sorting (Note [Ranks] in src/sem/sorting.cpp): values only, but for a stable sort.
  reduce("aten::sort", kFI, "(%x: $T[4,6]) -> ($T[4,6]) {\n  %y: $T[4,6], %i: i64[4,6] = OP(%x) {dim=1}\n  return %y\n}");
  reduce("aten::sort", kFI, "(%x: $T[5,3]) -> ($T[5,3]) {\n  %y: $T[5,3], %i: i64[5,3] = OP(%x) {dim=0, descending=true}\n  return %y\n}");
  reduce("aten::sort", kF, "(%x: $T[]) -> ($T[]) {\n  %y: $T[], %i: i64[] = OP(%x)\n  return %y\n}");
  reduce("aten::sort.stable", kFI, "(%x: $T[4,6]) -> ($T[4,6], i64[4,6]) {\n  %y: $T[4,6], %i: i64[4,6] = OP(%x) {stable=true, dim=-1}\n  return %y, %i\n}");
  reduce("aten::sort.stable", kF, "(%x: $T[4,6]) -> ($T[4,6], i64[4,6]) {\n  %y: $T[4,6], %i: i64[4,6] = OP(%x) {stable=true, dim=1, descending=true}\n  return %y, %i\n}");
  reduce("aten::topk", kFI, "(%x: $T[4,6]) -> ($T[4,3]) {\n  %y: $T[4,3], %i: i64[4,3] = OP(%x) {k=3, dim=1}\n  return %y\n}");
  reduce("aten::topk", kFI, "(%x: $T[5,3]) -> ($T[2,3]) {\n  %y: $T[2,3], %i: i64[2,3] = OP(%x) {k=2, dim=0, largest=false}\n  return %y\n}");
  // ---- convolution and pooling (Note [Windows] in src/sem/convolution.cpp)
  c.push_back(fixed("aten::convolution", kF32,
                    "(%x: $T[2,3,5,6], %w: $T[4,3,2,3], %b: $T[4]) -> ($T[2,4,6,2]) {\n  %y: $T[2,4,6,2] = aten::convolution(%x, %w, %b) "
                    "{stride=[1,2], padding=[1,0], dilation=[1,1], transposed=false, output_padding=[0,0], groups=1}\n  return %y\n}"));
  c.push_back(fixed("aten::convolution", kF32,
                    "(%x: $T[1,4,5,5], %w: $T[6,2,3,3]) -> ($T[1,6,2,3]) {\n  %y: $T[1,6,2,3] = aten::convolution(%x, %w, none) "
                    "{stride=[2,2], padding=[0,1], dilation=[1,1], transposed=false, output_padding=[0,0], groups=2}\n  return %y\n}"));
  c.push_back(fixed("aten::convolution", kF32,
                    "(%x: $T[2,2,9], %w: $T[3,2,3], %b: $T[3]) -> ($T[2,3,9]) {\n  %y: $T[2,3,9] = aten::convolution(%x, %w, %b) "
                    "{stride=[1], padding=[2], dilation=[2], transposed=false, output_padding=[0], groups=1}\n  return %y\n}"));
  // The evaluator computes every output of a node, and max pooling's indices have no term:
  // the values are audited through max_pool2d/3d, which LibTorch runs through the same
  // _with_indices kernels.
  c.push_back(fixed("aten::max_pool2d", kF32,
                    "(%x: $T[2,3,7,6]) -> ($T[2,3,4,3]) {\n  %y: $T[2,3,4,3] = aten::max_pool2d(%x) "
                    "{kernel_size=[3,2], stride=[2,2], padding=[1,0], dilation=[1,1], ceil_mode=false}\n  return %y\n}"));
  c.push_back(fixed("aten::max_pool2d", kF32,
                    "(%x: $T[3,5,5]) -> ($T[3,3,3]) {\n  %y: $T[3,3,3] = aten::max_pool2d(%x) "
                    "{kernel_size=[2,2], stride=[2,2], padding=[0,0], dilation=[1,1], ceil_mode=true}\n  return %y\n}"));
  c.push_back(fixed("aten::max_pool1d", kF32,
                    "(%x: $T[2,3,8]) -> ($T[2,3,4]) {\n  %y: $T[2,3,4] = aten::max_pool1d(%x) "
                    "{kernel_size=[3], stride=[2], padding=[1], dilation=[1], ceil_mode=false}\n  return %y\n}"));
  for (const char *nd : {"2d", "3d"}) {
    std::string shape = std::string(nd) == "2d" ? "[1,2,4,4]" : "[1,2,2,4,4]";
    std::string out = std::string(nd) == "2d" ? "[1,2,2,2]" : "[1,2,1,2,2]";
    std::string k = std::string(nd) == "2d" ? "[2,2]" : "[2,2,2]", z = std::string(nd) == "2d" ? "[0,0]" : "[0,0,0]";
    std::string one = std::string(nd) == "2d" ? "[1,1]" : "[1,1,1]";
    std::string op = std::string("aten::max_pool") + nd + "_with_indices";
    c.push_back(fixed(op, kF32, "(%x: $T" + shape + ") -> ($T" + out + ") {\n  %y: $T" + out + ", %i: i64" + out + " = " + op +
                                    "(%x) {kernel_size=" + k + ", stride=" + k + ", padding=" + z + ", dilation=" + one +
                                    ", ceil_mode=false}\n  return %y\n}"));
  }
  c.push_back(fixed("aten::max_pool3d", kF32,
                    "(%x: $T[1,2,4,5,5]) -> ($T[1,2,2,3,2]) {\n  %y: $T[1,2,2,3,2] = aten::max_pool3d(%x) "
                    "{kernel_size=[2,3,2], stride=[2,2,2], padding=[0,1,0], dilation=[1,1,2], ceil_mode=false}\n  return %y\n}"));
  c.push_back(fixed("aten::avg_pool2d", kF32,
                    "(%x: $T[2,3,7,6]) -> ($T[2,3,4,3]) {\n  %y: $T[2,3,4,3] = aten::avg_pool2d(%x) "
                    "{kernel_size=[3,2], stride=[2,2], padding=[1,0], ceil_mode=false, count_include_pad=true, divisor_override=none}\n  return %y\n}"));
  c.push_back(fixed("aten::avg_pool2d", kF32,
                    "(%x: $T[2,3,7,6]) -> ($T[2,3,4,4]) {\n  %y: $T[2,3,4,4] = aten::avg_pool2d(%x) "
                    "{kernel_size=[3,2], stride=[2,2], padding=[1,1], ceil_mode=true, count_include_pad=false, divisor_override=none}\n  return %y\n}"));
  c.push_back(fixed("aten::avg_pool2d", kF32,
                    "(%x: $T[1,5,5]) -> ($T[1,3,3]) {\n  %y: $T[1,3,3] = aten::avg_pool2d(%x) "
                    "{kernel_size=[2,2], stride=[2,2], padding=[0,0], ceil_mode=true, count_include_pad=true, divisor_override=3}\n  return %y\n}"));
  c.push_back(fixed("aten::avg_pool1d", kF32,
                    "(%x: $T[2,3,8]) -> ($T[2,3,4]) {\n  %y: $T[2,3,4] = aten::avg_pool1d(%x) "
                    "{kernel_size=[3], stride=[2], padding=[1], ceil_mode=false, count_include_pad=false}\n  return %y\n}"));
  c.push_back(fixed("aten::avg_pool3d", kF32,
                    "(%x: $T[1,2,4,4,5]) -> ($T[1,2,2,2,3]) {\n  %y: $T[1,2,2,2,3] = aten::avg_pool3d(%x) "
                    "{kernel_size=[2,2,3], stride=[2,2,2], padding=[0,0,1], ceil_mode=false, count_include_pad=true, divisor_override=none}\n  return %y\n}"));
  c.push_back(fixed("aten::any", kFIB, "(%x: $T[4,6]) -> (bool[]) {\n  %y: bool[] = aten::any(%x)\n  return %y\n}"));
  c.push_back(fixed("aten::all", kFIB, "(%x: $T[4,6]) -> (bool[]) {\n  %y: bool[] = aten::all(%x)\n  return %y\n}"));
  c.push_back(fixed("aten::all.dim", kFIB, "(%x: $T[4,6]) -> (bool[4]) {\n  %y: bool[4] = aten::all.dim(%x) {dim=1, keepdim=false}\n  return %y\n}"));
  c.push_back(fixed("aten::all.dim", {"bool"}, "(%m: $T[2,3]) -> (bool[2,1]) {\n  %y: bool[2,1] = aten::all.dim(%m) {dim=-1, keepdim=true}\n  return %y\n}"));
  c.push_back(fixed("aten::any.dim", kFIB, "(%x: $T[4,6]) -> (bool[4,1]) {\n  %y: bool[4,1] = aten::any.dim(%x) {dim=1, keepdim=true}\n  return %y\n}"));
  c.push_back(fixed("aten::native_dropout", kF, "(%x: $T[3,5]) -> ($T[3,5], bool[3,5]) {\n  %y: $T[3,5], %m: bool[3,5] = aten::native_dropout(%x) {p=0.5, train=false}\n  return %y, %m\n}"));
  for (const char *nd : {"1d", "2d", "3d"}) {
    std::string op = std::string("aten::conv") + nd;
    std::string x = nd == std::string("1d") ? "[2,2,7]" : nd == std::string("2d") ? "[1,2,5,6]" : "[1,2,3,4,4]";
    std::string w = nd == std::string("1d") ? "[3,2,3]" : nd == std::string("2d") ? "[3,2,3,2]" : "[3,2,2,3,2]";
    std::string y = nd == std::string("1d") ? "[2,3,7]" : nd == std::string("2d") ? "[1,3,5,7]" : "[1,3,4,4,5]";
    c.push_back(fixed(op, kF32, "(%x: $T" + x + ", %w: $T" + w + ", %b: $T[3]) -> ($T" + y + ") {\n  %y: $T" + y + " = " + op +
                                    "(%x, %w, %b) {stride=[1], padding=[1], dilation=[1], groups=1}\n  return %y\n}"));
  }
  c.push_back(fixed("aten::convolution_backward", kF32,
                    "(%g: $T[2,4,3,1], %x: $T[2,2,5,6], %w: $T[4,1,2,3]) -> ($T[2,2,5,6], $T[4,1,2,3], $T[4]) {\n"
                    "  %gi: $T[2,2,5,6], %gw: $T[4,1,2,3], %gb: $T[4] = aten::convolution_backward(%g, %x, %w) {bias_sizes=[4], "
                    "stride=[2,2], padding=[1,0], dilation=[1,2], transposed=false, output_padding=[0,0], groups=2, "
                    "output_mask=[true, true, true]}\n  return %gi, %gw, %gb\n}"));
  c.push_back(fixed("aten::convolution_backward", kF32,
                    "(%g: $T[2,3,7], %x: $T[2,2,9], %w: $T[3,2,3]) -> ($T[2,2,9], $T[3,2,3], $T[3]) {\n"
                    "  %gi: $T[2,2,9], %gw: $T[3,2,3], %gb: $T[3] = aten::convolution_backward(%g, %x, %w) {bias_sizes=[3], "
                    "stride=[1], padding=[0], dilation=[1], transposed=false, output_padding=[0], groups=1, "
                    "output_mask=[true, true, true]}\n  return %gi, %gw, %gb\n}"));
  c.push_back(fixed("aten::_adaptive_avg_pool2d", kF32,
                    "(%x: $T[2,3,7,6]) -> ($T[2,3,3,2]) {\n  %y: $T[2,3,3,2] = aten::_adaptive_avg_pool2d(%x) {output_size=[3,2]}\n  return %y\n}"));
  c.push_back(fixed("aten::adaptive_avg_pool2d", kF32,
                    "(%x: $T[2,3,4,6]) -> ($T[2,3,1,1]) {\n  %y: $T[2,3,1,1] = aten::adaptive_avg_pool2d(%x) {output_size=[1,1]}\n  return %y\n}"));
  c.push_back(fixed("aten::adaptive_avg_pool1d", kF32,
                    "(%x: $T[2,3,7]) -> ($T[2,3,4]) {\n  %y: $T[2,3,4] = aten::adaptive_avg_pool1d(%x) {output_size=[4]}\n  return %y\n}"));
  c.push_back(fixed("aten::_adaptive_avg_pool3d", kF32,
                    "(%x: $T[1,2,3,4,5]) -> ($T[1,2,2,2,3]) {\n  %y: $T[1,2,2,2,3] = aten::_adaptive_avg_pool3d(%x) {output_size=[2,2,3]}\n  return %y\n}"));
  c.push_back(fixed("aten::adaptive_avg_pool3d", kF32,
                    "(%x: $T[1,2,3,4,4]) -> ($T[1,2,1,2,2]) {\n  %y: $T[1,2,1,2,2] = aten::adaptive_avg_pool3d(%x) {output_size=[1,2,2]}\n  return %y\n}"));
  c.push_back(fixed("aten::upsample_nearest2d.vec", kF32,
                    "(%x: $T[1,2,3,4]) -> ($T[1,2,5,8]) {\n  %y: $T[1,2,5,8] = aten::upsample_nearest2d.vec(%x) {output_size=[5,8], scale_factors=none}\n  return %y\n}"));
  c.push_back(fixed("aten::upsample_nearest2d.vec", kF32,
                    "(%x: $T[1,2,3,4]) -> ($T[1,2,4,6]) {\n  %y: $T[1,2,4,6] = aten::upsample_nearest2d.vec(%x) {output_size=none, scale_factors=[1.5, 1.5]}\n  return %y\n}"));
  c.push_back(fixed("aten::col2im", kF32,
                    "(%x: $T[2,12,12]) -> ($T[2,3,4,5]) {\n  %y: $T[2,3,4,5] = aten::col2im(%x) {output_size=[4,5], "
                    "kernel_size=[2,2], dilation=[1,1], padding=[1,0], stride=[2,1]}\n  return %y\n}"));
  c.push_back(fixed("aten::col2im", kF32,
                    "(%x: $T[4,9]) -> ($T[1,5,5]) {\n  %y: $T[1,5,5] = aten::col2im(%x) {output_size=[5,5], "
                    "kernel_size=[2,2], dilation=[2,2], padding=[0,0], stride=[1,1]}\n  return %y\n}"));
  for (const char *p : {"2.0", "1.0", "0.0"})
    c.push_back(fixed("aten::_cdist_forward", kF32,
                      std::string("(%a: $T[2,3,4], %b: $T[2,5,4]) -> ($T[2,3,5]) {\n  %y: $T[2,3,5] = aten::_cdist_forward(%a, %b) {p=") +
                          p + ", compute_mode=none}\n  return %y\n}"));
  for (const char *p : {"2.0", "1.0", "0.0"})
    c.push_back(fixed("aten::_pdist_forward", kF32,
                      std::string("(%x: $T[5,3]) -> ($T[10]) {\n  %y: $T[10] = aten::_pdist_forward(%x) {p=") + p + "}\n  return %y\n}"));
  // Pooling backwards: each output position's share added back to its window.
  c.push_back(fixed("aten::avg_pool2d_backward", kF32,
                    "(%g: $T[2,3,3,2], %x: $T[2,3,5,5]) -> ($T[2,3,5,5]) {\n  %y: $T[2,3,5,5] = aten::avg_pool2d_backward(%g, %x) "
                    "{kernel_size=[3,3], stride=[2,3], padding=[1,1], ceil_mode=false, count_include_pad=true, divisor_override=none}\n  return %y\n}"));
  c.push_back(fixed("aten::avg_pool2d_backward", kF32,
                    "(%g: $T[1,2,3,4], %x: $T[1,2,5,6]) -> ($T[1,2,5,6]) {\n  %y: $T[1,2,5,6] = aten::avg_pool2d_backward(%g, %x) "
                    "{kernel_size=[2,3], stride=[2,2], padding=[0,1], ceil_mode=true, count_include_pad=false, divisor_override=none}\n  return %y\n}"));
  c.push_back(fixed("aten::avg_pool2d_backward", kF32,
                    "(%g: $T[2,2,2], %x: $T[2,4,4]) -> ($T[2,4,4]) {\n  %y: $T[2,4,4] = aten::avg_pool2d_backward(%g, %x) "
                    "{kernel_size=[2,2], stride=[2,2], padding=[0,0], ceil_mode=false, count_include_pad=true, divisor_override=3}\n  return %y\n}"));
  c.push_back(fixed("aten::_adaptive_avg_pool2d_backward", kF32,
                    "(%g: $T[2,3,3,2], %x: $T[2,3,7,6]) -> ($T[2,3,7,6]) {\n  %y: $T[2,3,7,6] = aten::_adaptive_avg_pool2d_backward(%g, %x)\n  return %y\n}"));
  c.push_back(fixed("aten::_adaptive_avg_pool2d_backward", kF32,
                    "(%g: $T[1,2,1,1], %x: $T[1,2,4,5]) -> ($T[1,2,4,5]) {\n  %y: $T[1,2,4,5] = aten::_adaptive_avg_pool2d_backward(%g, %x)\n  return %y\n}"));
  // Indices drawn in [0, H*W) (%i20: a 4x5 plane), repeats included: overlapping windows add up.
  c.push_back(fixed("aten::max_pool2d_with_indices_backward", kF32,
                    "(%g: $T[2,3,2,3], %x: $T[2,3,4,5], %i20: i64[2,3,2,3]) -> ($T[2,3,4,5]) {\n"
                    "  %y: $T[2,3,4,5] = aten::max_pool2d_with_indices_backward(%g, %x, %i20) "
                    "{kernel_size=[3,3], stride=[2,2], padding=[1,1], dilation=[1,1], ceil_mode=false}\n  return %y\n}"));
  const std::vector<std::pair<std::string, std::string>> bilinear = {
      {"5,7", "output_size=[5,7], align_corners=false, scale_factors=none"},
      {"5,7", "output_size=[5,7], align_corners=true, scale_factors=none"},
      {"4,8", "output_size=none, align_corners=false, scale_factors=[1.5, 2.0]"},
      {"2,3", "output_size=[2,3], align_corners=false, scale_factors=none"}};
  for (const auto &[hw, a] : bilinear)
    c.push_back(fixed("aten::upsample_bilinear2d.vec", kF32,
                      "(%x: $T[1,2,3,4]) -> ($T[1,2," + hw + "]) {\n  %y: $T[1,2," + hw +
                          "] = aten::upsample_bilinear2d.vec(%x) {" + a + "}\n  return %y\n}"));
  // ---- batch norm (Note [Batch norm] in src/sem/composite.cpp)
  c.push_back(fixed("aten::native_batch_norm", kF32,
                    "(%x: $T[2,3,4], %w: $T[3], %b: $T[3], %rm: $T[3], %rv: $T[3]) -> ($T[2,3,4]) {\n"
                    "  %y: $T[2,3,4], %sm: $T[0], %sv: $T[0] = aten::native_batch_norm(%x, %w, %b, %rm, %rv) "
                    "{training=false, momentum=0.1, eps=1e-05}\n  return %y\n}"));
  c.push_back(fixed("aten::native_batch_norm", kF32,
                    "(%x: $T[2,3,4], %w: $T[3], %b: $T[3]) -> ($T[2,3,4], $T[3], $T[3]) {\n"
                    "  %y: $T[2,3,4], %sm: $T[3], %sv: $T[3] = aten::native_batch_norm(%x, %w, %b, none, none) "
                    "{training=true, momentum=0.1, eps=1e-05}\n  return %y, %sm, %sv\n}"));
  c.push_back(fixed("aten::native_group_norm_backward", kF32,
                    "(%g: $T[2,6,3,2], %x: $T[2,6,3,2], %m: $T[2,3], %r: $T[2,3], %w: $T[6]) -> ($T[2,6,3,2], $T[6], $T[6]) {\n"
                    "  %gi: $T[2,6,3,2], %gw: $T[6], %gb: $T[6] = aten::native_group_norm_backward(%g, %x, %m, %r, %w) "
                    "{N=2, C=6, HxW=6, group=3, output_mask=[true, true, true]}\n  return %gi, %gw, %gb\n}"));
  c.push_back(fixed("aten::native_group_norm_backward", kF32,
                    "(%g: $T[2,4,5], %x: $T[2,4,5], %m: $T[2,1], %r: $T[2,1], %w: $T[4]) -> ($T[2,4,5], $T[4], $T[4]) {\n"
                    "  %gi: $T[2,4,5], %gw: $T[4], %gb: $T[4] = aten::native_group_norm_backward(%g, %x, %m, %r, %w) "
                    "{N=2, C=4, HxW=5, group=1, output_mask=[true, true, true]}\n  return %gi, %gw, %gb\n}"));
  c.push_back(fixed("aten::native_group_norm", kF32,
                    "(%x: $T[2,6,5], %w: $T[6], %b: $T[6]) -> ($T[2,6,5], $T[2,3], $T[2,3]) {\n"
                    "  %y: $T[2,6,5], %m: $T[2,3], %r: $T[2,3] = aten::native_group_norm(%x, %w, %b) {N=2, C=6, HxW=5, group=3, eps=1e-05}\n"
                    "  return %y, %m, %r\n}"));
  c.push_back(fixed("aten::batch_norm", kF32,
                    "(%x: $T[2,3,4], %w: $T[3], %b: $T[3], %rm: $T[3], %rv: $T[3]) -> ($T[2,3,4]) {\n"
                    "  %y: $T[2,3,4] = aten::batch_norm(%x, %w, %b, %rm, %rv) {training=false, momentum=0.1, eps=1e-05, cudnn_enabled=false}\n  return %y\n}"));
  // torch >= 2.1's Core ATen batch norm: LibTorch 1.13 has none of them (not run: the
  // term is native_batch_norm's, audited above).
  c.push_back(fixed("aten::_native_batch_norm_legit_no_training", kF32,
                    "(%x: $T[2,3,4], %w: $T[3], %b: $T[3], %rm: $T[3], %rv: $T[3]) -> ($T[2,3,4]) {\n"
                    "  %y: $T[2,3,4], %sm: $T[0], %sv: $T[0] = aten::_native_batch_norm_legit_no_training(%x, %w, %b, %rm, %rv) {momentum=0.1, eps=1e-05}\n  return %y\n}"));
  c.push_back(fixed("aten::_native_batch_norm_legit_functional", kF32,
                    "(%x: $T[2,3,4], %w: $T[3], %b: $T[3], %rm: $T[3], %rv: $T[3]) -> ($T[2,3,4], $T[3], $T[3], $T[3], $T[3]) {\n"
                    "  %y: $T[2,3,4], %sm: $T[3], %sv: $T[3], %nm: $T[3], %nv: $T[3] = aten::_native_batch_norm_legit_functional(%x, %w, %b, %rm, %rv) {training=true, momentum=0.1, eps=1e-05}\n  return %y, %sm, %sv, %nm, %nv\n}"));
  c.push_back(fixed("aten::_native_batch_norm_legit.no_stats", kF32,
                    "(%x: $T[2,3,4], %w: $T[3], %b: $T[3]) -> ($T[2,3,4]) {\n"
                    "  %y: $T[2,3,4], %sm: $T[3], %sv: $T[3] = aten::_native_batch_norm_legit.no_stats(%x, %w, %b) {training=true, momentum=0.1, eps=1e-05}\n  return %y\n}"));
  for (const char *train : {"true", "false"})
    c.push_back(fixed("aten::native_batch_norm_backward", kF32,
                      "(%g: $T[2,3,4], %x: $T[2,3,4], %w: $T[3], %rm: $T[3], %rv: $T[3], %sm: $T[3], %si: $T[3]) -> ($T[2,3,4], $T[3], $T[3]) {\n"
                      "  %gi: $T[2,3,4], %gw: $T[3], %gb: $T[3] = aten::native_batch_norm_backward(%g, %x, %w, %rm, %rv, %sm, %si) "
                      "{train=" + std::string(train) + ", eps=1e-05, output_mask=[true, true, true]}\n  return %gi, %gw, %gb\n}"));
  c.push_back(fixed("aten::index.Tensor", kF, "(%x: $T[4,5,3], %i4: i64[2,1], %i3: i64[3]) -> ($T[2,3,5]) {\n  %y: $T[2,3,5] = aten::index.Tensor(%x, %i4, none, %i3)\n  return %y\n}"));
  c.push_back(fixed("aten::index.Tensor", kFI, "(%x: $T[2,4,5,3], %i4: i64[2,1], %i5: i64[3]) -> ($T[2,2,3,3]) {\n  %y: $T[2,2,3,3] = aten::index.Tensor(%x, none, %i4, %i5)\n  return %y\n}"));
  c.push_back(fixed("aten::layer_norm", kF32,
                    "(%x: $T[3,8], %w: $T[8], %b: $T[8]) -> ($T[3,8]) {\n"
                    "  %y: $T[3,8] = aten::layer_norm(%x, %w, %b) {normalized_shape=[8], eps=1e-05, cudnn_enable=false}\n  return %y\n}"));
  c.push_back(fixed("aten::softmax.int", kF, "(%x: $T[3,7]) -> ($T[3,7]) {\n  %y: $T[3,7] = aten::softmax.int(%x) {dim=1, dtype=none}\n  return %y\n}"));
  c.push_back(fixed("aten::log_softmax.int", kF, "(%x: $T[3,7]) -> ($T[3,7]) {\n  %y: $T[3,7] = aten::log_softmax.int(%x) {dim=-1, dtype=none}\n  return %y\n}"));
  // ---- matrix products
  c.push_back(fixed("aten::mm", kF, "(%a: $T[3,5], %b: $T[5,4]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::mm(%a, %b)\n  return %y\n}"));
  c.push_back(fixed("aten::bmm", kF, "(%a: $T[2,3,5], %b: $T[2,5,4]) -> ($T[2,3,4]) {\n  %y: $T[2,3,4] = aten::bmm(%a, %b)\n  return %y\n}"));
  c.push_back(fixed("aten::matmul", kF, "(%a: $T[2,3,5], %b: $T[5]) -> ($T[2,3]) {\n  %y: $T[2,3] = aten::matmul(%a, %b)\n  return %y\n}"));
  c.push_back(fixed("aten::dot", kF, "(%a: $T[7], %b: $T[7]) -> ($T[]) {\n  %y: $T[] = aten::dot(%a, %b)\n  return %y\n}"));
  c.push_back(fixed("aten::addmm", kF, "(%c: $T[4], %a: $T[3,5], %b: $T[5,4]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::addmm(%c, %a, %b)\n  return %y\n}"));
  c.push_back(fixed("aten::linear", kF, "(%x: $T[2,3,5], %w: $T[4,5], %c: $T[4]) -> ($T[2,3,4]) {\n  %y: $T[2,3,4] = aten::linear(%x, %w, %c)\n  return %y\n}"));
  // ---- layout
  auto layout = [&](const std::string &op, const std::string &in, const std::string &out, const std::string &a) {
    c.push_back(fixed(op, kFIB, "(%x: $T" + in + ") -> ($T" + out + ") {\n  %y: $T" + out + " = " + op + "(%x)" +
                                     attrs(a) + "\n  return %y\n}"));
  };
  layout("aten::t", "[3,5]", "[5,3]", "");
  layout("aten::view", "[3,4]", "[2,6]", "size=[2,-1]");
  layout("aten::reshape", "[3,4]", "[12]", "shape=[-1]");
  layout("aten::_unsafe_view", "[3,4]", "[4,3]", "size=[4,3]");
  layout("aten::_reshape_alias", "[3,4]", "[2,6]", "size=[2,6], stride=[6,1]");
  layout("aten::expand", "[3,1]", "[2,3,4]", "size=[2,-1,4]");
  layout("aten::permute", "[2,3,4]", "[4,2,3]", "dims=[2,0,1]");
  layout("aten::transpose.int", "[2,3,4]", "[2,4,3]", "dim0=1, dim1=-1");
  layout("aten::unsqueeze", "[3,4]", "[3,1,4]", "dim=1");
  layout("aten::squeeze", "[3,1,4,1]", "[3,4]", "");
  layout("aten::squeeze.dim", "[3,1,4]", "[3,4]", "dim=1");
  layout("aten::squeeze.dims", "[3,1,4,1]", "[3,4]", "dim=[1,3]");
  layout("aten::slice.Tensor", "[7,3]", "[2,3]", "dim=0, start=1, end=-2, step=2");
  layout("aten::select.int", "[7,3]", "[7]", "dim=1, index=-1");
  layout("aten::flip", "[3,4]", "[3,4]", "dims=[0,1]");
  layout("aten::tril", "[4,5]", "[4,5]", "diagonal=1");
  layout("aten::triu", "[4,5]", "[4,5]", "diagonal=-1");
  c.push_back(fixed("aten::cat", kFIB, "(%a: $T[2,3], %b: $T[2,0], %c: $T[2,4]) -> ($T[2,7]) {\n  %y: $T[2,7] = aten::cat(%a, %b, %c) {dim=1}\n  return %y\n}"));
  c.push_back(fixed("aten::stack", kFIB, "(%a: $T[2,3], %b: $T[2,3]) -> ($T[2,2,3]) {\n  %y: $T[2,2,3] = aten::stack(%a, %b) {dim=1}\n  return %y\n}"));
  c.push_back(fixed("aten::slice_scatter", kFIB, "(%x: $T[4,8], %s: $T[4,3]) -> ($T[4,8]) {\n  %y: $T[4,8] = aten::slice_scatter(%x, %s) {dim=1, start=2, end=-3, step=1}\n  return %y\n}"));
  c.push_back(fixed("aten::split.Tensor", kFIB, "(%x: $T[7,3]) -> ($T[3,3], $T[3,3], $T[1,3]) {\n  %a: $T[3,3], %b: $T[3,3], %d: $T[1,3] = aten::split.Tensor(%x) {split_size=3, dim=0}\n  return %a, %b, %d\n}"));
  c.push_back(fixed("aten::split_with_sizes", kFIB, "(%x: $T[3,7]) -> ($T[3,2], $T[3,5]) {\n  %a: $T[3,2], %b: $T[3,5] = aten::split_with_sizes(%x) {split_sizes=[2,5], dim=1}\n  return %a, %b\n}"));
  c.push_back(fixed("aten::chunk", kFIB, "(%x: $T[5,4]) -> ($T[5,2], $T[5,2]) {\n  %a: $T[5,2], %b: $T[5,2] = aten::chunk(%x) {chunks=2, dim=1}\n  return %a, %b\n}"));
  c.push_back(fixed("aten::unbind.int", kFIB, "(%x: $T[2,3]) -> ($T[3], $T[3]) {\n  %a: $T[3], %b: $T[3] = aten::unbind.int(%x) {dim=0}\n  return %a, %b\n}"));
  c.push_back(fixed("aten::expand_as", kFIB, "(%x: $T[3,1], %o: $T[2,3,4]) -> ($T[2,3,4]) {\n  %y: $T[2,3,4] = aten::expand_as(%x, %o)\n  return %y\n}"));
  c.push_back(fixed("aten::type_as", kFIB, "(%x: $T[3,4], %o: $T[2]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::type_as(%x, %o)\n  return %y\n}"));
  c.push_back(fixed("aten::diff", kFIB, "(%x: $T[3,5]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::diff(%x, none, none) {n=1, dim=-1}\n  return %y\n}"));
  c.push_back(fixed("aten::diff", kFI, "(%x: $T[3,4], %p: $T[3,2], %a: $T[3,1]) -> ($T[3,6]) {\n  %y: $T[3,6] = aten::diff(%x, %p, %a) {n=1, dim=1}\n  return %y\n}"));
  layout("aten::flatten.using_ints", "[2,3,4]", "[2,12]", "start_dim=1, end_dim=-1");
  c.push_back(fixed("aten::select_backward", kF, "(%g: $T[4]) -> ($T[4,5]) {\n  %y: $T[4,5] = aten::select_backward(%g) {input_sizes=[4,5], dim=1, index=-2}\n  return %y\n}"));
  c.push_back(fixed("aten::slice_backward", kF, "(%g: $T[4,2]) -> ($T[4,7]) {\n  %y: $T[4,7] = aten::slice_backward(%g) {input_sizes=[4,7], dim=1, start=1, end=5, step=3}\n  return %y\n}"));
  c.push_back(fixed("aten::slice_backward", kF, "(%g: $T[2,3]) -> ($T[5,3]) {\n  %y: $T[5,3] = aten::slice_backward(%g) {input_sizes=[5,3], dim=0, start=-3, end=-1, step=1}\n  return %y\n}"));
  c.push_back(fixed("aten::new_ones", kFIB, "(%x: $T[2]) -> ($T[3]) {\n  %y: $T[3] = aten::new_ones(%x) {size=[3]}\n  return %y\n}"));
  c.push_back(fixed("aten::index.Tensor", kFIB, "(%x: $T[4,5,3], %i5: i64[2,3]) -> ($T[4,2,3,3]) {\n  %y: $T[4,2,3,3] = aten::index.Tensor(%x, none, %i5)\n  return %y\n}"));
  c.push_back(fixed("aten::index.Tensor", kF, "(%x: $T[4,3], %i4: i64[6]) -> ($T[6,3]) {\n  %y: $T[6,3] = aten::index.Tensor(%x, %i4)\n  return %y\n}"));
  for (const char *how : {"sum", "prod", "mean", "amax", "amin"})
    for (const char *self : {"true", "false"})
      c.push_back(fixed("aten::scatter_reduce.two", kF,
                        std::string("(%x: $T[3,5], %i5: i64[3,4], %s: $T[3,4]) -> ($T[3,5]) {\n  %y: $T[3,5] = "
                                    "aten::scatter_reduce.two(%x, %i5, %s) {dim=1, reduce=\"") +
                            how + "\", include_self=" + self + "}\n  return %y\n}"));
  c.push_back(fixed("aten::scatter_reduce.two", {"i32", "i64"},
                    "(%x: $T[4,3], %i4: i64[2,3], %s: $T[2,3]) -> ($T[4,3]) {\n  %y: $T[4,3] = aten::scatter_reduce.two(%x, %i4, %s) "
                    "{dim=0, reduce=\"prod\", include_self=false}\n  return %y\n}"));
  c.push_back(fixed("aten::masked_scatter", kFIB,
                    "(%x: $T[3,4], %m: bool[3,4], %s: $T[3,5]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::masked_scatter(%x, %m, %s)\n  return %y\n}"));
  c.push_back(fixed("aten::masked_scatter", kF,
                    "(%x: $T[3,4], %m: bool[4], %s: $T[12]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::masked_scatter(%x, %m, %s)\n  return %y\n}"));
  c.push_back(fixed("aten::masked_scatter", kF,
                    "(%x: $T[3,4], %m: bool[3,4], %s: $T[5]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::masked_scatter(%x, %m, %s)\n  return %y\n}"));
  c.push_back(fixed("aten::masked_select", kFI,
                    "(%x: $T[3,4], %z5: bool[3,4]) -> ($T[5]) {\n  %y: $T[5] = aten::masked_select(%x, %z5)\n  return %y\n}"));
  c.push_back(fixed("aten::masked_select", kF,
                    "(%x: $T[3,4], %z2: bool[4]) -> ($T[6]) {\n  %y: $T[6] = aten::masked_select(%x, %z2)\n  return %y\n}"));
  c.push_back(fixed("aten::nonzero", kFIB, "(%z5: $T[3,4]) -> (i64[5,2]) {\n  %y: i64[5,2] = aten::nonzero(%z5)\n  return %y\n}"));
  c.push_back(fixed("aten::nonzero", kF, "(%z3: $T[2,1,3]) -> (i64[3,3]) {\n  %y: i64[3,3] = aten::nonzero(%z3)\n  return %y\n}"));
  c.push_back(fixed("aten::nonzero", {"f32"}, "(%z0: $T[4]) -> (i64[0,1]) {\n  %y: i64[0,1] = aten::nonzero(%z0)\n  return %y\n}"));
  c.push_back(fixed("aten::scatter_add", kFI, "(%x: $T[3,5], %i5: i64[2,4], %s: $T[2,4]) -> ($T[3,5]) {\n  %y: $T[3,5] = aten::scatter_add(%x, %i5, %s) {dim=1}\n  return %y\n}"));
  c.push_back(fixed("aten::copy", kFIB, "(%x: $T[3,4], %s: $T[4]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::copy(%x, %s) {non_blocking=false}\n  return %y\n}"));
  c.push_back(fixed("aten::copy", kF, "(%x: $T[3,4], %s: i64[3,1]) -> ($T[3,4]) {\n  %y: $T[3,4] = aten::copy(%x, %s) {non_blocking=false}\n  return %y\n}"));
  layout("aten::repeat", "[2,3]", "[2,4,6]", "repeats=[2,2,2]");
  c.push_back(fixed("aten::select_scatter", kFIB, "(%x: $T[4,5], %s: $T[4]) -> ($T[4,5]) {\n  %y: $T[4,5] = aten::select_scatter(%x, %s) {dim=1, index=-2}\n  return %y\n}"));
  layout("aten::diagonal", "[3,4,5]", "[5,3]", "offset=1, dim1=0, dim2=1");
  layout("aten::diagonal", "[4,3]", "[2]", "offset=-2, dim1=0, dim2=-1");
  c.push_back(fixed("aten::reflection_pad1d", kF, "(%x: $T[2,5]) -> ($T[2,9]) {\n  %y: $T[2,9] = aten::reflection_pad1d(%x) {padding=[3,1]}\n  return %y\n}"));
  c.push_back(fixed("aten::reflection_pad2d", kF32, "(%x: $T[1,3,4]) -> ($T[1,5,7]) {\n  %y: $T[1,5,7] = aten::reflection_pad2d(%x) {padding=[1,2,2,0]}\n  return %y\n}"));
  c.push_back(fixed("aten::reflection_pad3d", kF32, "(%x: $T[1,2,3,3,3]) -> ($T[1,2,5,4,5]) {\n  %y: $T[1,2,5,4,5] = aten::reflection_pad3d(%x) {padding=[1,1,0,1,2,0]}\n  return %y\n}"));
  c.push_back(fixed("aten::replication_pad1d", kF32, "(%x: $T[2,3,4]) -> ($T[2,3,9]) {\n  %y: $T[2,3,9] = aten::replication_pad1d(%x) {padding=[2,3]}\n  return %y\n}"));
  c.push_back(fixed("aten::replication_pad2d", kF32, "(%x: $T[1,3,4]) -> ($T[1,8,5]) {\n  %y: $T[1,8,5] = aten::replication_pad2d(%x) {padding=[0,1,3,2]}\n  return %y\n}"));
  c.push_back(fixed("aten::replication_pad3d", kF32, "(%x: $T[1,2,2,3,3]) -> ($T[1,2,4,4,6]) {\n  %y: $T[1,2,4,4,6] = aten::replication_pad3d(%x) {padding=[1,2,0,1,2,0]}\n  return %y\n}"));
  c.push_back(fixed("aten::constant_pad_nd", kF, "(%x: $T[3,4]) -> ($T[3,7]) {\n  %y: $T[3,7] = aten::constant_pad_nd(%x) {pad=[1,2], value=0.5}\n  return %y\n}"));
  c.push_back(fixed("aten::arange", {"i64", "i32"}, "() -> ($T[5]) {\n  %y: $T[5] = aten::arange() {end=5, dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::arange.start", {"i64", "i32"}, "() -> ($T[4]) {\n  %y: $T[4] = aten::arange.start() {start=-2, end=2, dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::arange.start_step", {"i64", "i32"}, "() -> ($T[3]) {\n  %y: $T[3] = aten::arange.start_step() {start=7, end=1, step=-2, dtype=$T}\n  return %y\n}"));
  // ---- composites
  c.push_back(fixed("aten::_softmax", kF, "(%x: $T[3,7]) -> ($T[3,7]) {\n  %y: $T[3,7] = aten::_softmax(%x) {dim=1, half_to_float=false}\n  return %y\n}"));
  c.push_back(fixed("aten::_log_softmax", kF, "(%x: $T[3,7]) -> ($T[3,7]) {\n  %y: $T[3,7] = aten::_log_softmax(%x) {dim=-1, half_to_float=false}\n  return %y\n}"));
  c.push_back(fixed("aten::_safe_softmax", kF, "(%x: $T[3,7]) -> ($T[3,7]) {\n  %y: $T[3,7] = aten::_safe_softmax(%x) {dim=1}\n  return %y\n}"));
  c.push_back(fixed("aten::_softmax_backward_data", kF, "(%g: $T[3,7], %o: $T[3,7]) -> ($T[3,7]) {\n  %y: $T[3,7] = aten::_softmax_backward_data(%g, %o) {dim=1, input_dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::_log_softmax_backward_data", kF, "(%g: $T[3,7], %o: $T[3,7]) -> ($T[3,7]) {\n  %y: $T[3,7] = aten::_log_softmax_backward_data(%g, %o) {dim=1, input_dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::native_layer_norm", kF32,
                    "(%x: $T[3,8], %w: $T[8], %b: $T[8]) -> ($T[3,8], $T[3,1], $T[3,1]) {\n"
                    "  %y: $T[3,8], %m: $T[3,1], %r: $T[3,1] = aten::native_layer_norm(%x, %w, %b) {normalized_shape=[8], eps=1e-05}\n"
                    "  return %y, %m, %r\n}"));
  c.push_back(fixed("aten::native_layer_norm_backward", kF32,
                    "(%g: $T[3,8], %x: $T[3,8], %m: $T[3,1], %r: $T[3,1], %w: $T[8], %b: $T[8]) -> ($T[3,8], $T[8], $T[8]) {\n"
                    "  %dx: $T[3,8], %dw: $T[8], %db: $T[8] = aten::native_layer_norm_backward(%g, %x, %m, %r, %w, %b) "
                    "{normalized_shape=[8], output_mask=[true, true, true]}\n  return %dx, %dw, %db\n}"));
  // ---- index ops
  c.push_back(fixed("aten::gather", kFIB, "(%x: $T[3,5], %i5: i64[3,2]) -> ($T[3,2]) {\n  %y: $T[3,2] = aten::gather(%x, %i5) {dim=1}\n  return %y\n}"));
  c.push_back(fixed("aten::index_select", kFIB, "(%x: $T[4,3], %i4: i64[6]) -> ($T[6,3]) {\n  %y: $T[6,3] = aten::index_select(%x, %i4) {dim=0}\n  return %y\n}"));
  c.push_back(fixed("aten::embedding", kF, "(%w: $T[5,3], %i5: i64[2,4]) -> ($T[2,4,3]) {\n  %y: $T[2,4,3] = aten::embedding(%w, %i5)\n  return %y\n}"));
  c.push_back(fixed("aten::embedding_dense_backward", kF32, "(%g: $T[2,4,3], %i5: i64[2,4]) -> ($T[5,3]) {\n  %y: $T[5,3] = aten::embedding_dense_backward(%g, %i5) {num_weights=5, padding_idx=-1, scale_grad_by_freq=false}\n  return %y\n}"));
  c.push_back(fixed("aten::eye", kFIB, "() -> ($T[3,3]) {\n  %y: $T[3,3] = aten::eye() {n=3, dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::eye.m", kFIB, "() -> ($T[2,4]) {\n  %y: $T[2,4] = aten::eye.m() {n=2, m=4, dtype=$T}\n  return %y\n}"));
  c.push_back(fixed("aten::one_hot", {"i64"}, "(%i4: $T[3,2]) -> (i64[3,2,4]) {\n  %y: i64[3,2,4] = aten::one_hot(%i4) {num_classes=4}\n  return %y\n}"));
  c.push_back(fixed("aten::scatter.value", kFI, "(%x: $T[3,5], %i5: i64[3,2]) -> ($T[3,5]) {\n  %y: $T[3,5] = aten::scatter.value(%x, %i5) {dim=1, value=-1}\n  return %y\n}"));
  c.push_back(fixed("aten::scatter.src", kFI, "(%x: $T[3,5], %i5: i64[3,1], %s: $T[3,2]) -> ($T[3,5]) {\n  %y: $T[3,5] = aten::scatter.src(%x, %i5, %s) {dim=1}\n  return %y\n}"));
  c.push_back(fixed("aten::index_put", kFI, "(%x: $T[5,3], %i5: i64[4], %v: $T[4,3]) -> ($T[5,3]) {\n  %y: $T[5,3] = aten::index_put(%x, %i5, %v) {accumulate=true}\n  return %y\n}"));
  c.push_back(fixed("aten::index_put", kFI, "(%x: $T[5,3], %i5: i64[1], %v: $T[1,3]) -> ($T[5,3]) {\n  %y: $T[5,3] = aten::index_put(%x, %i5, %v) {accumulate=false}\n  return %y\n}"));
  // Note [index_put with a bool mask]: a mask of self's shape or its leading dims, one value.
  for (const char *acc : {"false", "true"}) {
    c.push_back(fixed("aten::index_put", kFI, std::string("(%x: $T[5,3], %m: bool[5,3], %v: $T[]) -> ($T[5,3]) {\n  %y: $T[5,3] = aten::index_put(%x, %m, %v) {accumulate=") + acc + "}\n  return %y\n}"));
    c.push_back(fixed("aten::index_put", kFI, std::string("(%x: $T[5,3], %m: bool[5], %v: $T[1]) -> ($T[5,3]) {\n  %y: $T[5,3] = aten::index_put(%x, %m, %v) {accumulate=") + acc + "}\n  return %y\n}"));
  }
  c.push_back(fixed("aten::nll_loss_forward", kF32,
                    "(%x: $T[4,5], %i5: i64[4]) -> ($T[], $T[]) {\n"
                    "  %y: $T[], %w: $T[] = aten::nll_loss_forward(%x, %i5, none) {reduction=1, ignore_index=2}\n  return %y, %w\n}"));
  c.push_back(fixed("aten::nll_loss_backward", kF32,
                    "(%g: $T[], %x: $T[4,5], %i5: i64[4], %tw: $T[]) -> ($T[4,5]) {\n"
                    "  %y: $T[4,5] = aten::nll_loss_backward(%g, %x, %i5, none, %tw) {reduction=2, ignore_index=-100}\n  return %y\n}"));
  // Note [repeat_interleave of repeats]: the result's length is the repeats' sum, so they are
  // constants here (uniform, as GQA's repeat_kv, and 0, 1, 2 with an empty run).
  for (const char *repeats : {"aten::full() {size=[3], fill_value=2, dtype=i64, layout=none, device=none, pin_memory=none}",
                              "aten::arange() {end=3, dtype=i64, layout=none, device=none, pin_memory=none}"}) {
    std::string n = std::string(repeats).find("full") != std::string::npos ? "6" : "3";
    c.push_back(fixed("aten::repeat_interleave.Tensor", {"i64"},
                      "(%x: $T[" + n + "]) -> ($T[" + n + "]) {\n  %r: i64[3] = " + repeats +
                          "\n  %j: i64[" + n + "] = aten::repeat_interleave.Tensor(%r)\n  %y: $T[" + n +
                          "] = aten::add.Tensor(%x, %j)\n  return %y\n}"));
  }
  c.push_back(fixed("aten::scaled_dot_product_attention", kF32,
                    "(%q: $T[2,3,4], %k: $T[2,5,4], %v: $T[2,5,4]) -> ($T[2,3,4]) {\n"
                    "  %y: $T[2,3,4] = aten::scaled_dot_product_attention(%q, %k, %v, none)\n  return %y\n}"));
  return c;
}

}  // namespace

const std::vector<AuditCase> &auditCases() {
  static const std::vector<AuditCase> cases = build();
  return cases;
}

}  // namespace torchtv::audit
