// Note [Complex values as pairs of reals]
// A complex tensor of shape S is read as the real tensor of shape S + [2] of its component dtype
// (c64: f32, c128: f64) that torch.view_as_real returns: the last dim holds (re, im), and the
// row-major order of the pair tensor is the complex tensor's storage. This pass, run once before
// the others, is the only code that knows complex arithmetic; every later stage (matching, the
// normal form, Z3, the evaluator) sees reals. Per op:
//  - view_as_complex and view_as_real are the identity on the pair tensor (so
//    view_as_real(view_as_complex(x)) is x, bit for bit);
//  - add, sub, neg, conj and multiplication or division by a real act on the halves; a real
//    operand of add or sub is the complex (r, 0);
//  - a * b of two complex values is (ar*br - ai*bi, ar*bi + ai*br), a / b is a * conj(b) / |b|^2
//    (ATen divides with Smith's scaling; equal over the reals); exp(a + bi) is e^a (cos b, sin b),
//    log(a + bi) is (log |z|, atan2(b, a));
//    polar(r, t) is (r cos t, r sin t); complex(re, im) is the pair; abs is sqrt(re^2 + im^2),
//    angle atan2(im, re);
//  - layout ops (views, reshapes, transpose, permute, select, slice, expand, cat, sum over dims)
//    keep the pair dim last: a negative dim of the complex tensor is one less on the pair tensor.
// Arithmetic is marked real-level (Note [Levels of rewrites]): ATen's complex kernels are not
// audited bit for bit against these formulas (a vectorized complex multiply may fuse products).
// Layout ops and the identities stay bitwise. An op on complex values not listed here (pow,
// sqrt, matmul, FFTs, ...), and a complex graph input or output, is left as it is:
// the semantics has no meaning for complex dtypes, so the outputs that read it are unknown, the op
// named (Note [Storage-only dtypes] in ir/dtype.h).
#include <set>
#include <unordered_map>

#include "ir/op_registry.h"
#include "src/normalize/passes.h"

namespace torchtv {

namespace {

bool hasComplex(const std::vector<Value *> &values) {
  for (const Value *v : values)
    if (v && isComplex(v->type.dtype)) return true;
  return false;
}

// A dim of a complex tensor, as a dim of its pair tensor.
int64_t pairDim(int64_t dim) { return dim < 0 ? dim - 1 : dim; }

class ComplexLowering {
public:
  explicit ComplexLowering(Rewriter &rw) : rw_(rw) {}

  bool run() {
    bool changed = false;
    for (Node *n : rw_.snapshot()) {
      if (!hasComplex(n->inputs) && !hasComplex(n->outputs)) continue;
      node_ = n;
      changed |= lower(n);
    }
    return changed;
  }

private:
  Rewriter &rw_;
  Node *node_ = nullptr;  // the node being lowered: its location and level go to what replaces it
  std::unordered_map<const Value *, Value *> pairs_;

  Value *emit(const std::string &op, std::vector<Value *> inputs, AttributeMap attrs, bool real) {
    NodeSpec spec{op, std::move(inputs), std::move(attrs), {}, {}, node_->loc};
    return rw_.build(std::move(spec), real || rw_.anyOutputReal(*node_))->output();
  }
  Value *arith(const std::string &op, std::vector<Value *> inputs, AttributeMap attrs = {}) {
    return emit(op, std::move(inputs), std::move(attrs), true);
  }
  Value *layout(const std::string &op, Value *in, AttributeMap attrs) { return emit(op, {in}, std::move(attrs), false); }

  Value *half(Value *pair, int64_t k) { return layout("aten::select.int", pair, {{"dim", int64_t{-1}}, {"index", k}}); }
  Value *join(Value *re, Value *im) {
    Value *r = layout("aten::unsqueeze", re, {{"dim", int64_t{-1}}});
    Value *i = layout("aten::unsqueeze", im, {{"dim", int64_t{-1}}});
    return emit("aten::cat", {r, i}, {{"dim", int64_t{-1}}}, false);
  }
  Value *convert(Value *v, DType to) {
    return v->type.dtype == to ? v : layout("aten::_to_copy", v, {{"dtype", to}});
  }
  // |z|^2 = re^2 + im^2 of a pair tensor, and its conjugate (re, -im).
  Value *normSquared(Value *pair) {
    Value *re = half(pair, 0), *im = half(pair, 1);
    return arith("aten::add.Tensor", {arith("aten::mul.Tensor", {re, re}), arith("aten::mul.Tensor", {im, im})});
  }
  Value *conjugate(Value *pair) { return join(half(pair, 0), emit("aten::neg", {half(pair, 1)}, {}, false)); }
  // A real operand of the pair tensors' shape minus the pair dim, broadcast over both halves.
  Value *overHalves(Value *real) { return layout("aten::unsqueeze", real, {{"dim", int64_t{-1}}}); }

  // The pair tensor of operand v, in dtype `component`: a lowered complex value, or a real one
  // as (v, 0); nullptr for a complex value this pass could not lower.
  Value *pairOf(Value *v, DType component) {
    if (!v) return nullptr;
    if (!isComplex(v->type.dtype)) {
      Value *re = convert(v, component);
      return join(re, layout("aten::zeros_like", re, {}));
    }
    auto it = pairs_.find(v);
    return it == pairs_.end() ? nullptr : convert(it->second, component);
  }

  // The output's dtype, as the dtype of its pair's halves.
  DType outComponent() const { return componentOf(node_->outputs[0]->type.dtype); }

  bool define(Value *pair) {  // the node's complex output is `pair`
    if (!pair) return false;
    pairs_[node_->outputs[0]] = pair;
    return true;
  }
  bool replaceReal(Value *real) {  // the node's real output is `real`
    if (!real) return false;
    rw_.replace(node_->outputs[0], real);
    return true;
  }

  bool lower(Node *n);
  Value *product(Value *a, Value *b);
  Value *lowerLayout(Node *n, Value *p);
};

Value *ComplexLowering::product(Value *a, Value *b) {
  Value *ar = half(a, 0), *ai = half(a, 1), *br = half(b, 0), *bi = half(b, 1);
  Value *re = arith("aten::sub.Tensor", {arith("aten::mul.Tensor", {ar, br}), arith("aten::mul.Tensor", {ai, bi})});
  Value *im = arith("aten::add.Tensor", {arith("aten::mul.Tensor", {ar, bi}), arith("aten::mul.Tensor", {ai, br})});
  return join(re, im);
}

// A layout op of a complex value whose result is complex, on its pair tensor p.
Value *ComplexLowering::lowerLayout(Node *n, Value *p) {
  const std::string &op = n->op;
  auto sizes = concreteSizes(n->outputs[0]->type.shape);
  static const std::set<std::string> rowMajorViews = {
      "aten::view",          "aten::reshape",       "aten::_unsafe_view", "aten::_reshape_alias", "aten::view_copy",
      "aten::squeeze",       "aten::squeeze.dim",   "aten::squeeze.dims", "aten::unsqueeze",      "aten::flatten.using_ints",
      "aten::unflatten.int", "aten::squeeze_copy", "aten::unsqueeze_copy"};
  static const std::set<std::string> identities = {"aten::clone",       "aten::alias",       "aten::contiguous",
                                                   "aten::detach",      "aten::lift_fresh_copy", "aten::resolve_conj",
                                                   "aten::resolve_neg", "aten::alias_copy",  "aten::lift_fresh"};
  if (identities.count(op)) return p;
  if (sizes && rowMajorViews.count(op)) {
    sizes->push_back(2);
    return layout("aten::view", p, {{"size", *sizes}});
  }
  if (sizes && (op == "aten::expand" || op == "aten::expand_copy")) {
    sizes->push_back(2);
    return layout("aten::expand", p, {{"size", *sizes}});
  }
  int64_t rank = n->inputs[0]->type.rank();
  if (op == "aten::transpose.int" || op == "aten::transpose_copy.int")
    return layout("aten::transpose.int", p,
                  {{"dim0", pairDim(n->attr("dim0").asInt())}, {"dim1", pairDim(n->attr("dim1").asInt())}});
  if (op == "aten::t") return rank < 2 ? p : layout("aten::transpose.int", p, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}});
  if (op == "aten::permute" || op == "aten::permute_copy") {
    std::vector<int64_t> dims;
    for (int64_t d : n->attr("dims").asInts()) dims.push_back(d < 0 ? d + rank : d);
    dims.push_back(rank);
    return layout("aten::permute", p, {{"dims", dims}});
  }
  if (op == "aten::select.int" || op == "aten::select_copy.int")
    return layout("aten::select.int", p, {{"dim", pairDim(n->attr("dim").asInt())}, {"index", n->attr("index")}});
  if (op == "aten::slice.Tensor" || op == "aten::slice_copy.Tensor")
    return layout("aten::slice.Tensor", p,
                  {{"dim", pairDim(n->attr("dim").asInt())}, {"start", n->attr("start")}, {"end", n->attr("end")},
                   {"step", n->attr("step")}});
  if (op == "aten::sum.dim_IntList" && n->attr("dtype").isNone() && n->attr("dim").isInts()) {
    std::vector<int64_t> dims;
    for (int64_t d : n->attr("dim").asInts()) dims.push_back(pairDim(d));
    return emit(op, {p}, {{"dim", dims}, {"keepdim", n->attr("keepdim")}}, false);
  }
  return nullptr;
}

bool ComplexLowering::lower(Node *n) {
  const std::string &op = n->op;
  if (n->outputs.size() != 1) return false;
  const Value *out = n->outputs[0];
  if (op == "aten::view_as_complex" || op == "aten::view_as_complex_copy") return define(n->inputs[0]);
  if (op == "aten::polar") {
    Value *r = n->inputs[0], *t = n->inputs[1];
    return define(join(arith("aten::mul.Tensor", {r, arith("aten::cos", {t})}),
                       arith("aten::mul.Tensor", {r, arith("aten::sin", {t})})));
  }
  if (op == "aten::complex") {
    auto sizes = concreteSizes(out->type.shape);
    if (!sizes) return false;
    auto whole = [&](Value *v) { return v->type.shape == out->type.shape ? v : layout("aten::expand", v, {{"size", *sizes}}); };
    return define(join(whole(n->inputs[0]), whole(n->inputs[1])));
  }
  if (n->inputs.empty() || !n->inputs[0]) return false;
  Value *in = n->inputs[0];
  if (!isComplex(out->type.dtype)) {  // a complex operand, a real result
    if (!isComplex(in->type.dtype) || n->inputs.size() != 1) return false;
    Value *p = pairOf(in, componentOf(in->type.dtype));
    if (!p) return false;
    if (op == "aten::view_as_real" || op == "aten::view_as_real_copy") return replaceReal(p);
    if (op == "aten::real") return replaceReal(half(p, 0));
    if (op == "aten::imag") return replaceReal(half(p, 1));
    if (op == "aten::abs") return replaceReal(arith("aten::sqrt", {normSquared(p)}));
    if (op == "aten::angle") return replaceReal(arith("aten::atan2", {half(p, 1), half(p, 0)}));
    if (op == "aten::_to_copy" && isFloating(out->type.dtype))  // the real part, as PyTorch's cast keeps
      return replaceReal(convert(half(p, 0), out->type.dtype));
    return false;
  }
  DType c = outComponent();
  if (op == "aten::cat") {
    std::vector<Value *> parts;
    for (Value *v : n->inputs)
      if (!(parts.emplace_back(pairOf(v, c)))) return false;
    return define(emit("aten::cat", parts, {{"dim", pairDim(n->attr("dim").asInt())}}, false));
  }
  if (op == "aten::_to_copy") return define(pairOf(in, c));
  bool binary = n->inputs.size() == 2 && n->inputs[1];
  if (!binary) {
    if (n->inputs.size() != 1 || !isComplex(in->type.dtype)) return false;
    Value *p = pairOf(in, c);
    if (!p) return false;
    if (op == "aten::neg" || op == "aten::_neg_view") return define(emit("aten::neg", {p}, {}, false));
    if (op == "aten::conj" || op == "aten::_conj" || op == "aten::conj_physical" || op == "aten::_conj_physical")
      return define(conjugate(p));
    if (op == "aten::exp") {  // e^(a + bi) = e^a (cos b + i sin b)
      Value *m = arith("aten::exp", {half(p, 0)}), *b = half(p, 1);
      return define(join(arith("aten::mul.Tensor", {m, arith("aten::cos", {b})}),
                         arith("aten::mul.Tensor", {m, arith("aten::sin", {b})})));
    }
    if (op == "aten::log")  // log(a + bi) = (log |z|, atan2(b, a)), the principal branch
      return define(join(arith("aten::log", {arith("aten::sqrt", {normSquared(p)})}),
                         arith("aten::atan2", {half(p, 1), half(p, 0)})));
    if (op == "aten::mul.Scalar" || op == "aten::div.Scalar")
      return define(arith(op, {p}, {{"other", n->attr("other")}}));
    if (op == "aten::add.Scalar" || op == "aten::sub.Scalar")
      return define(join(arith(op, {half(p, 0)}, {{"other", n->attr("other")}, {"alpha", n->attr("alpha")}}),
                         half(p, 1)));
    return define(lowerLayout(n, p));
  }
  Value *a = n->inputs[0], *b = n->inputs[1];
  if (op == "aten::add.Tensor" || op == "aten::sub.Tensor") {
    Value *pa = pairOf(a, c), *pb = pa ? pairOf(b, c) : nullptr;
    return pb && define(emit(op, {pa, pb}, {{"alpha", n->attr("alpha")}}, !n->attr("alpha").isScalar() ||
                                                                             n->attr("alpha").asDouble() != 1.0));
  }
  bool realB = !isComplex(b->type.dtype), realA = !isComplex(a->type.dtype);
  if (op == "aten::mul.Tensor" && (realA || realB)) {  // a complex value scaled by a real one
    Value *p = pairOf(realA ? b : a, c);
    Value *scale = convert(realA ? a : b, c);
    return p && define(arith("aten::mul.Tensor", {p, overHalves(scale)}));
  }
  if (op == "aten::div.Tensor" && realB) {
    Value *p = pairOf(a, c);
    return p && define(arith("aten::div.Tensor", {p, overHalves(convert(b, c))}));
  }
  if (op == "aten::mul.Tensor") {
    Value *pa = pairOf(a, c), *pb = pa ? pairOf(b, c) : nullptr;
    return pb && define(product(pa, pb));
  }
  if (op == "aten::div.Tensor") {  // a / b = a * conj(b) / |b|^2
    Value *pa = pairOf(a, c), *pb = pa ? pairOf(b, c) : nullptr;
    return pb && define(arith("aten::div.Tensor", {product(pa, conjugate(pb)), overHalves(normSquared(pb))}));
  }
  return false;
}

}  // namespace

bool lowerComplex(Rewriter &rw) { return ComplexLowering(rw).run(); }

}  // namespace torchtv
