#include <algorithm>
#include <cmath>
#include <map>

#include "ir/op_registry.h"
#include "src/match/value_numbering.h"
#include "src/normalize/passes.h"
#include "src/normalize/scalar_values.h"

namespace torchtv {

namespace {

// Note [Scalar overloads]
// One canonical direction: a binary op whose second operand is a 0-d constant
// becomes its Scalar overload with the constant as an attribute. PyTorch
// treats a 0-d CPU tensor and a wrapped number alike inside the kernel (both
// become a scalar of the compute type; the Scalar overloads are implemented by
// wrapping the number into such a tensor), so the two agree whenever
//  - the result type is unchanged (checked by rebuilding the node), and
//  - the constant's value is exact in the result's dtype, so converting it
//    first to the tensor dtype and then to the compute type, or directly to
//    the compute type, gives the same number.
// The pairs are the registry's scalar twins (Note [Op properties] in
// ir/op_registry.h) where both overloads have a shape rule (a pass rebuilds
// the node; the others' types come only from the input file). pow is not one:
// pow.Tensor_Tensor's twin would be pow.Tensor_Scalar, which has its own
// kernel (x*x for exponent 2).
struct ScalarForm {
  std::string op;
  std::string arg;  // the Scalar argument replacing the tensor operand
};
std::optional<ScalarForm> scalarForm(const std::string &op) {
  const OpInfo *info = lookupOp(op);
  if (!info || !info->hasShapeRule() || info->props.scalarTwin.empty()) return std::nullopt;
  const OpInfo *twin = lookupOp(info->props.scalarTwin);
  if (!twin || !twin->hasShapeRule()) return std::nullopt;
  return ScalarForm{info->props.scalarTwin, info->props.scalarArg};
}

std::optional<double> zeroDimConstant(const Value *v) {
  if (!v || v->type.rank() != 0 || !v->producer || v->producer->op != "aten::full") return std::nullopt;
  const Attribute &f = v->producer->attr("fill_value");
  if (!f.isScalar()) return std::nullopt;
  return f.asDouble();
}

bool tensorToScalar(Rewriter &rw, Node *n) {
  auto form = scalarForm(n->op);
  if (!form || n->inputs.size() < 2) return false;
  size_t constIdx = 1;
  if (form->arg != "other") {
    const std::vector<const ArgSpec *> args = n->schema->tensorArgs();
    constIdx = static_cast<size_t>(std::find_if(args.begin(), args.end(), [&](const ArgSpec *a) {
                                     return a->name == form->arg;
                                   }) - args.begin());
    if (constIdx >= n->inputs.size()) return false;
  }
  auto c = zeroDimConstant(n->inputs[constIdx]);
  if (!c && isBitwiseCommutative(*n) && zeroDimConstant(n->inputs[0])) {
    c = zeroDimConstant(n->inputs[0]);
    constIdx = 0;
  }
  if (!c) return false;
  Value *self = n->inputs[constIdx == 0 ? 1 : 0];
  const TensorType &out = n->outputs[0]->type;
  DType valueType = out.dtype == DType::Bool ? self->type.dtype : out.dtype;
  // The attribute kind follows the tensor operand: a float for floating ones.
  auto scalar = scalarFor(*c, self->type.dtype);
  if (!scalar || !exactIn(*c, valueType) || self->type.dtype == DType::Bool) return false;
  NodeSpec spec;
  spec.op = form->op;
  for (size_t i = 0; i < n->inputs.size(); ++i)
    if (i != constIdx) spec.inputs.push_back(n->inputs[i]);
  spec.attrs = n->attrs;
  spec.attrs[form->arg] = *scalar;
  spec.loc = n->loc;
  bool real = rw.anyOutputReal(*n) || rw.isReal(n->inputs[constIdx]);
  Node *s = rw.build(spec, real);
  if (s->outputs[0]->type != out) return false;
  rw.replace(n->outputs[0], s->outputs[0]);
  return true;
}

// An int Scalar argument on a floating tensor means the same as the float of
// equal value (the kernel converts it to the compute type either way); below
// 2^24 the conversion is exact in every compute type. `alpha` is left alone:
// value numbering treats add with alpha=1 (an int) as commutative.
bool intScalarsToFloat(Rewriter &rw, Node *n) {
  const OpInfo *info = lookupOp(n->op);
  if (!info || !info->hasShapeRule() || n->inputs.empty() || !n->inputs[0] || !isFloating(n->inputs[0]->type.dtype))
    return false;
  for (const Value *v : n->inputs)
    if (v && !isFloating(v->type.dtype)) return false;
  AttributeMap attrs = n->attrs;
  bool any = false;
  for (const ArgSpec &a : n->schema->args) {
    if (a.kind != ArgKind::Scalar || a.name == "alpha") continue;
    auto it = attrs.find(a.name);
    if (it == attrs.end() || !it->second.isInt() || std::llabs(it->second.asInt()) > (1LL << 24)) continue;
    it->second = static_cast<double>(it->second.asInt());
    any = true;
  }
  if (!any) return false;
  NodeSpec spec{n->op, n->inputs, attrs, {}, {}, n->loc};
  Node *s = rw.build(spec, rw.anyOutputReal(*n));
  for (size_t i = 0; i < s->outputs.size(); ++i)
    if (s->outputs[i]->type != n->outputs[i]->type) return false;
  for (size_t i = 0; i < s->outputs.size(); ++i) rw.replace(n->outputs[i], s->outputs[i]);
  return true;
}

}  // namespace

bool unifyScalarOverloads(Rewriter &rw) {
  return rw.rewriteEach([&](Node *n) { return tensorToScalar(rw, n) || intScalarsToFloat(rw, n); });
}

}  // namespace torchtv
