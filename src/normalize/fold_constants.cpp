#include <set>

#include "ir/op_registry.h"
#include "src/normalize/passes.h"
#include "src/normalize/scalar_values.h"

namespace torchtv {

namespace {

// Ops whose result, for a constant operand filled with one value, is that
// value filled into the result's shape: they only move or repeat elements
// (Note [Op properties] in ir/op_registry.h).
bool movesElementsOnly(const std::string &op) { return opProps(op).elements != ElementMap::None; }

// The single value a node's output is filled with, if it is a constant fill.
std::optional<double> fillValue(const Node &n) {
  auto numeric = [](const Attribute &a) -> std::optional<double> {
    if (!a.isScalar()) return std::nullopt;
    return a.asDouble();
  };
  if (n.op == "aten::full" || n.op == "aten::full_like" || n.op == "aten::new_full") return numeric(n.attr("fill_value"));
  if (n.op == "aten::ones_like" || n.op == "aten::ones") return 1.0;
  if (n.op == "aten::zeros_like" || n.op == "aten::zeros" || n.op == "aten::new_zeros") return 0.0;
  if (n.op == "aten::scalar_tensor") return numeric(n.attr("s"));
  // fill (make_fx's reading of fill_) overwrites every element: its operand,
  // often an uninitialized empty_like, is never read.
  if (n.op == "aten::fill.Scalar") return numeric(n.attr("value"));
  if (n.op == "aten::zero") return 0.0;
  if (n.op == "prim::constant") {
    const Attribute &d = n.attr("data");
    std::vector<double> xs;
    if (d.isFloats()) xs = d.asFloats();
    else for (int64_t i : d.asInts()) xs.push_back(static_cast<double>(i));
    if (xs.empty()) return std::nullopt;
    for (double x : xs)
      if (Attribute(x) != Attribute(xs[0])) return std::nullopt;
    return xs[0];
  }
  return std::nullopt;
}

// The canonical `aten::full` for `out` filled with `v`, or nullopt when the
// value is not exactly what the tensor holds (then folding could change it).
std::optional<NodeSpec> fullSpec(const Value *out, double v) {
  auto sizes = concreteSizes(out->type.shape);
  auto fill = scalarFor(v, out->type.dtype);
  if (!sizes || !fill) return std::nullopt;
  NodeSpec spec;
  spec.op = "aten::full";
  spec.attrs = {{"size", *sizes}, {"fill_value", *fill}, {"dtype", out->type.dtype}};
  return spec;
}

bool isCanonicalFull(const Node &n) {
  return n.op == "aten::full" && n.attr("layout").isNone() && n.attr("device").isNone() &&
         n.attr("pin_memory").isNone() && !n.attr("dtype").isNone();
}

}  // namespace

bool foldConstants(Rewriter &rw) {
  return rw.rewriteEach([&](Node *n) {
    if (n->outputs.size() != 1) return false;
    Value *out = n->outputs[0];
    std::optional<double> v;
    bool real = rw.anyOutputReal(*n);
    if (isCanonicalFull(*n)) {
      auto exact = scalarFor(n->attr("fill_value").asDouble(), out->type.dtype);
      if (exact && *exact == n->attr("fill_value")) return false;  // already canonical
      v = n->attr("fill_value").asDouble();
    } else if (n->op == "aten::empty_like") {
      return false;  // uninitialized: never a constant
    } else if (auto own = fillValue(*n)) {
      v = own;
    } else if (movesElementsOnly(n->op) && n->inputs[0] && n->inputs[0]->producer &&
               isCanonicalFull(*n->inputs[0]->producer)) {
      v = n->inputs[0]->producer->attr("fill_value").asDouble();
      real = real || rw.isReal(n->inputs[0]);
    } else if ((n->op == "aten::_to_copy" || n->op == "aten::to.dtype") && n->inputs[0]->producer &&
               isCanonicalFull(*n->inputs[0]->producer)) {
      // A cast of a constant is exact when the value is exact in the target.
      v = n->inputs[0]->producer->attr("fill_value").asDouble();
      real = real || rw.isReal(n->inputs[0]);
    }
    if (!v) return false;
    auto spec = fullSpec(out, *v);
    if (!spec) return false;
    spec->loc = n->loc;
    Node *f = rw.build(*spec, real);
    if (f->outputs[0]->type != out->type) return false;
    rw.replace(out, f->outputs[0]);
    return true;
  });
}

}  // namespace torchtv
