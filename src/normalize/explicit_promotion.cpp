#include <set>

#include "ir/op_registry.h"
#include "src/normalize/passes.h"

namespace torchtv {

namespace {

// Note [Explicit promotion]
// TensorIterator converts every tensor operand of a promoting op to the
// common dtype before computing, so `add(f16 x, f32 y)` is `add(f32(x), y)`
// bit for bit, and `mul(f32 x, f64[] y)` (a 0-d operand does not promote
// within its category) is `mul(x, f32(y))`. Writing the casts out makes the
// two sides agree on where conversions happen. Logical ops are left alone:
// they test operands for non-zero in their own dtype.
const std::set<ShapeRule> kPromoting = {ShapeRule::Broadcast, ShapeRule::BroadcastFloat,
                                        ShapeRule::Compare, ShapeRule::Where};

std::optional<DType> commonDType(const Node &n, ShapeRule rule) {
  if (rule == ShapeRule::Broadcast || rule == ShapeRule::BroadcastFloat || rule == ShapeRule::Where)
    return n.outputs[0]->type.dtype;
  // Compare: the dtype the operands meet at, as Broadcast would compute it.
  std::vector<const TensorType *> ins;
  for (const Value *v : n.inputs) ins.push_back(v ? &v->type : nullptr);
  std::vector<TensorType> none;
  try {
    return inferOutputTypes(ShapeRule::Broadcast, ShapeQuery{*n.schema, ins, n.attrs, none}).at(0).dtype;
  } catch (const ShapeError &) {
    return std::nullopt;
  }
}

}  // namespace

bool makePromotionExplicit(Rewriter &rw) {
  return rw.rewriteEach([&](Node *n) {
    if (n->op.rfind("aten::logical_", 0) == 0) return false;
    const OpInfo *info = lookupOp(n->op);
    if (!info || !kPromoting.count(info->rule)) return false;
    auto common = commonDType(*n, info->rule);
    if (!common) return false;
    size_t first = info->rule == ShapeRule::Where ? 1 : 0;  // where's condition stays bool
    std::vector<Value *> ins = n->inputs;
    bool any = false;
    for (size_t i = first; i < ins.size(); ++i) {
      if (!ins[i] || ins[i]->type.dtype == *common) continue;
      NodeSpec cast{"aten::_to_copy", {ins[i]}, {{"dtype", *common}}, {}, {}, n->loc};
      ins[i] = rw.build(cast, rw.isReal(ins[i]))->outputs[0];
      any = true;
    }
    if (!any) return false;
    NodeSpec spec{n->op, ins, n->attrs, {}, {}, n->loc};
    Node *p = rw.build(spec, rw.anyOutputReal(*n));
    if (p->outputs[0]->type != n->outputs[0]->type) return false;
    rw.replace(n->outputs[0], p->outputs[0]);
    return true;
  });
}

}  // namespace torchtv
