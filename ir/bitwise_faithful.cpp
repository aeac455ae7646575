#include "ir/bitwise_faithful.h"

#include "ir/graph.h"
#include "ir/op_registry.h"

namespace torchtv {

namespace {

// a + alpha * b: ATen's CPU kernel computes it with one fused multiply-add, so
// alpha * b never overflows or underflows on its own (a = inf, b = -max f32,
// alpha = 2: ATen inf, the unfused formula NaN). Exact only for alpha = +-1.
bool floatingResult(const Node &n) { return !n.outputs.empty() && isFloating(n.outputs[0]->type.dtype); }
bool floatingOperand(const Node &n) { return !n.inputs.empty() && n.inputs[0] && isFloating(n.inputs[0]->type.dtype); }

bool alphaNotUnit(const Node &n) {
  if (!floatingResult(n)) return false;  // integers wrap: a + alpha * b is exact
  auto it = n.attrs.find("alpha");
  if (it == n.attrs.end() || !it->second.isScalar()) return false;
  double a = it->second.asDouble();
  return a != 1.0 && a != -1.0;
}

// pow(x, c) is arithmetic at level bitwise only for c in {0, 1, 2, 3, 0.5, -1}
// (src/smt/encode.cpp and TermContext::make); any other exponent is an atom, and ATen's vectorized
// pow rounds differently from its scalar loop.
bool powAtom(const Node &n) {
  auto it = n.attrs.find("exponent");
  if (it == n.attrs.end() || !it->second.isScalar()) return true;
  double c = it->second.asDouble();
  return c != 0 && c != 1 && c != 2 && c != 3 && c != 0.5 && c != -1;
}

constexpr const char *kPositional =
    "ATen's vectorized loop and its scalar loop (the tail, or a tensor shorter than a vector) round "
    "differently: an element's bits depend on its position in the tensor";

bool floorMode(const Node &n) {
  auto it = n.attrs.find("rounding_mode");
  return it != n.attrs.end() && it->second.isString() && it->second.asString() == "floor";
}

constexpr const char *kBatchNorm =
    "ATen's kernel normalizes as x * (invstd * weight) + (bias - mean * invstd * weight), with its own order of "
    "rounding (and, in training, its own order of accumulation for the statistics)";

constexpr const char *kLibm =
    "a library function whose vectorized (Sleef) and scalar (libm) loops may round differently: real-only "
    "until measured bit for bit";

constexpr const char *kNeighbours =
    "ATen's vectorized kernel (Sleef) reduces every lane of a vector the slow way when one lane is huge: an "
    "element's bits depend on its neighbours in the tensor";

// Note [Layout-changing copies]
// The IR keeps values, not strides (docs/trust.md). A copy into another layout
// (contiguous(), clone or _to_copy with memory_format=contiguous_format) of a
// tensor that may not be contiguous itself (a permuted, sliced or selected view,
// or an expanded one; any clone of an expanded one) holds the same values in
// another memory order, and ATen's reductions and matrix products may accumulate
// in another order over the two (1 ulp in a cross-entropy loss: the metamorphic
// generator's strided_layout class). Such a copy is real-only at level bitwise,
// and drop_no_ops keeps it, so a bitwise claim through it rests on value
// numbering alone: the same copy on both sides. Copies of fresh tensors and of
// graph inputs (taken to be contiguous) stay the identity.
bool contiguousFormat(const Node &n) {
  auto it = n.attrs.find("memory_format");
  return n.op == "aten::contiguous" ||
         (it != n.attrs.end() && it->second.isString() && it->second.asString() == "contiguous_format");
}

bool isCopy(const std::string &op) {
  return op == "aten::contiguous" || op == "aten::clone" || op == "aten::_to_copy" || op == "aten::to.dtype_layout";
}

// Whether `v` may be laid out otherwise than row-major: a view chain from it up
// to a fresh tensor passes a permuting or expanding view (or, with
// `expandOnly`, an expanding one).
bool mayBeStrided(const Value *v, bool expandOnly) {
  for (const Node *p = v->producer; p; p = p->inputs.empty() || !p->inputs[0] ? nullptr : p->inputs[0]->producer) {
    if (p->op == "aten::expand" || p->op == "aten::expand_as" || p->op == "prims::broadcast_in_dim") return true;
    ElementMap m = opProps(p->op).elements;
    if (m == ElementMap::Reorder) {
      if (p->op == "aten::flip") return false;  // a fresh tensor
      if (!expandOnly) return true;
      continue;
    }
    if (isCopy(p->op) && contiguousFormat(*p)) return false;  // row-major from here on
    if (m != ElementMap::Reshape && m != ElementMap::Identity) return false;  // a fresh tensor
  }
  return false;
}

bool layoutChangingCopy(const Node &n) {
  if (!isCopy(n.op) || n.inputs.empty() || !n.inputs[0]) return false;
  return mayBeStrided(n.inputs[0], /*expandOnly=*/!contiguousFormat(n));
}

constexpr const char *kLayout =
    "a copy into another memory layout of a view that may not be row-major: ATen's reductions and matrix "
    "products may accumulate in another order over the copy (Note [Layout-changing copies])";

}  // namespace

bool isLayoutChangingCopy(const Node &n) { return layoutChangingCopy(n); }

bool isContiguousCopy(const Node &n) { return isCopy(n.op) && contiguousFormat(n); }

// Measured by the semantics audit against LibTorch 1.13 (CPU, AVX2):
// bench/results/semantics_audit.txt has an example of each.
const std::vector<BitwiseUnfaithfulOp> &bitwiseUnfaithfulOps() {
  static const std::vector<BitwiseUnfaithfulOp> ops = {
      {"aten::silu_backward",
       "ATen's kernel computes the sigmoid inline, not as aten::sigmoid: g * s * (1 + x * (1 - s)) with "
       "s = aten::sigmoid(x) differs from it in the last bit"},
      {"aten::gelu_backward",
       "ATen's kernel evaluates erf, exp and tanh inline: the formula over aten::erf, aten::exp and aten::tanh "
       "differs from it in the last bits"},
      {"aten::tanh_backward", "ATen's kernel computes 1 - y*y with a fused multiply-add (one rounding, not two)"},
      {"aten::maximum",
       "signed zeros: ATen's vectorized loop returns the second operand of a +0/-0 tie, its scalar loop the first",
       floatingResult},
      {"aten::minimum",
       "signed zeros: ATen's vectorized loop returns the second operand of a +0/-0 tie, its scalar loop the first",
       floatingResult},
      {"aten::max.other", "signed zeros: as aten::maximum (the same kernel)", floatingResult},
      {"aten::min.other", "signed zeros: as aten::minimum (the same kernel)", floatingResult},
      {"aten::add.Tensor", "alpha other than +-1: a fused multiply-add", alphaNotUnit},
      {"aten::sub.Tensor", "alpha other than +-1: a fused multiply-add", alphaNotUnit},
      {"aten::rsub.Tensor", "alpha other than +-1: a fused multiply-add", alphaNotUnit},
      {"aten::add.Scalar", "alpha other than +-1: a fused multiply-add", alphaNotUnit},
      {"aten::sub.Scalar", "alpha other than +-1: a fused multiply-add", alphaNotUnit},
      {"aten::rsub.Scalar", "alpha other than +-1: a fused multiply-add", alphaNotUnit},
      {"aten::addcmul", "self + value * t1 * t2: the compiler may contract it into a fused multiply-add"},
      {"aten::addcdiv", "self + value * t1 / t2: not measured bit for bit"},
      {"aten::pow.Tensor_Scalar", kPositional, powAtom},
      {"aten::sigmoid", kPositional},
      {"aten::silu", kPositional},
      {"aten::gelu", kPositional},
      {"aten::rsqrt", kPositional},
      {"aten::cos", kNeighbours},
      {"aten::sin", kNeighbours},
      {"aten::atan2", kPositional},
      {"aten::pow.Tensor_Tensor", kPositional},
      {"aten::pow.Scalar", kPositional},
      {"aten::clamp.Tensor",
       "signed zeros: ATen's vectorized loop (minimum/maximum) and its scalar loop (std::min/max) break a +0/-0 "
       "tie differently",
       floatingResult},
      // Note [fmod, remainder and floor division] (src/sem/elementwise.cpp): arithmetic around the
      // fmod atom, which the bitwise prover cannot check bit for bit.
      {"aten::remainder.Tensor", "arithmetic around C's fmod (an atom at level bitwise)", floatingResult},
      {"aten::remainder.Scalar", "arithmetic around C's fmod (an atom at level bitwise)", floatingResult},
      {"aten::div.Tensor_mode", "rounding_mode=\"floor\": arithmetic around C's fmod (an atom at level bitwise)", floorMode},
      {"aten::div.Scalar_mode", "rounding_mode=\"floor\": arithmetic around C's fmod (an atom at level bitwise)", floorMode},
      // Note [Batch norm] (src/sem/composite.cpp).
      {"aten::native_batch_norm", kBatchNorm},
      {"aten::_native_batch_norm_legit_no_training", kBatchNorm},
      {"aten::_native_batch_norm_legit_functional", kBatchNorm},
      {"aten::_native_batch_norm_legit.no_stats", kBatchNorm},
      {"aten::native_group_norm", kBatchNorm},
      {"aten::batch_norm", kBatchNorm},
      {"aten::native_batch_norm_backward", kBatchNorm},
      {"aten::native_group_norm_backward", kBatchNorm},
      {"aten::upsample_bilinear2d.vec",
       "ATen's kernel rounds its interpolation in its own way (the semantics audit finds the last bits differ from "
       "the weighted sum of the four taps)"},
      {"prims::fma", "a fused multiply-add rounds once; the term a * b + c rounds twice"},
      // Library functions whose vectorized (Sleef) and scalar (libm) loops were not measured
      // bit for bit against each other: held real-only.
      {"aten::tan", kLibm}, {"aten::asin", kLibm}, {"aten::acos", kLibm}, {"aten::atan", kLibm},
      {"aten::sinh", kLibm}, {"aten::cosh", kLibm}, {"aten::asinh", kLibm}, {"aten::acosh", kLibm},
      {"aten::atanh", kLibm}, {"aten::log2", kLibm}, {"aten::log10", kLibm},
      {"aten::fmod.Tensor", kLibm}, {"aten::fmod.Scalar", kLibm},
      // Note [Special functions] (src/eval/special_functions.h): ATen's own approximations.
      {"aten::erfc", kLibm}, {"aten::exp2", kLibm}, {"aten::erfinv", kLibm}, {"aten::lgamma", kLibm},
      {"aten::digamma", kLibm}, {"aten::i0", kLibm}, {"aten::special_i0e", kLibm}, {"aten::special_i1", kLibm},
      {"aten::special_i1e", kLibm}, {"aten::special_bessel_j0", kLibm}, {"aten::special_bessel_j1", kLibm},
      {"aten::special_spherical_bessel_j0", kLibm}, {"aten::hypot", kLibm}, {"aten::igamma", kLibm},
      {"aten::igammac", kLibm}, {"aten::special_zeta", kLibm},
      {"aten::fmax", "signed zeros: a +0/-0 tie is not measured bit for bit", floatingResult},
      {"aten::fmin", "signed zeros: a +0/-0 tie is not measured bit for bit", floatingResult},
      {"aten::signbit", "the sign bit of a NaN is not modelled (x86 makes negative NaNs)", floatingOperand},
      {"aten::contiguous", kLayout, layoutChangingCopy},
      {"aten::clone", kLayout, layoutChangingCopy},
      {"aten::_to_copy", kLayout, layoutChangingCopy},
      {"aten::to.dtype_layout", kLayout, layoutChangingCopy},
  };
  return ops;
}

const char *bitwiseUnfaithfulReason(const Node &n) {
  for (const BitwiseUnfaithfulOp &e : bitwiseUnfaithfulOps())
    if (n.op == e.op && (!e.applies || e.applies(n))) return e.reason;
  return nullptr;
}

bool bitwiseFaithful(const Node &n) { return bitwiseUnfaithfulReason(n) == nullptr; }

}  // namespace torchtv
