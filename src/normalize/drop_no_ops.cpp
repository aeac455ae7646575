#include <set>

#include "ir/bitwise_faithful.h"
#include "ir/op_registry.h"
#include "src/normalize/passes.h"

namespace torchtv {

namespace {

// Identity ops (aliases and copies: Note [Op properties] in ir/op_registry.h)
// return their operand's values unchanged. Reshape ops (a view/reshape of an
// equal shape, an expand to the same shape, a squeeze that squeezes nothing, a
// _reshape_alias: Note [_reshape_alias is a reshape] in src/sem/layout.cpp)
// are the identity when the result has the operand's type: equal types imply
// equal element order. So are these casts to the same dtype and a cat of one
// tensor.
const std::set<std::string> kNoOpWhenSameType = {
    "aten::to.dtype", "aten::to.device", "aten::type_as", "aten::cat", "prims::convert_element_type",
};

bool isStrided(const Node &n) {
  auto it = n.attrs.find("layout");
  return it == n.attrs.end() || it->second.isNone() || it->second == Attribute("strided") ||
         it->second == Attribute(0);
}

bool identityPermutation(const Node &n) {
  int64_t rank = n.inputs[0]->type.rank();
  const auto &dims = n.attr("dims").asInts();
  for (int64_t i = 0; i < static_cast<int64_t>(dims.size()); ++i)
    if (wrapDim(dims[i], rank) != i) return false;
  return true;
}

bool isNoOp(const Node &n) {
  if (n.outputs.empty() || n.inputs.empty() || !n.inputs[0]) return false;
  const Value *in = n.inputs[0], *out = n.outputs[0];
  if (in->type != out->type) return false;
  // Dropout with p=0 or train=False: native_dropout's mask (output 1) is
  // then all true, the other output the operand.
  if (isIdentityCall(n.op, n.attrs)) return true;
  if (n.outputs.size() != 1 || isLayoutChangingCopy(n)) return false;
  ElementMap elements = opProps(n.op).elements;
  if (elements == ElementMap::Identity || elements == ElementMap::Reshape) return true;
  if (n.op == "aten::cat") return n.inputs.size() == 1;
  if (n.op == "aten::t") return in->type.rank() < 2;
  if (kNoOpWhenSameType.count(n.op)) return true;
  // torch.export writes `.to(dtype)` as to.dtype_layout (a device or layout too).
  if (n.op == "aten::_to_copy" || n.op == "aten::to.dtype_layout") return isStrided(n);
  if (n.op == "aten::permute") return identityPermutation(n);
  if (n.op == "aten::transpose.int") {
    int64_t r = in->type.rank();
    return wrapDim(n.attr("dim0").asInt(), r) == wrapDim(n.attr("dim1").asInt(), r);
  }
  if (n.op == "aten::slice.Tensor") return n.attr("step").asInt() == 1;
  if (n.op == "aten::flip") return n.attr("dims").asInts().empty();
  return false;
}

// native_dropout's mask when it keeps everything: a bool tensor of ones.
bool allTrueMask(Rewriter &rw, const Node &n) {
  const Value *mask = n.outputs[1];
  if (mask->type.dtype != DType::Bool || mask->type.shape != n.inputs[0]->type.shape) return false;
  NodeSpec spec{"aten::ones_like", {n.inputs[0]}, {{"dtype", DType::Bool}}, {}, {}, n.loc};
  Node *ones = rw.build(spec, rw.anyOutputReal(n));
  if (ones->outputs[0]->type != mask->type) return false;
  rw.replace(n.outputs[1], ones->outputs[0]);
  return true;
}

// Note [Copies through copies]
// A contiguous copy keeps its operand's values and lays them out row-major,
// whatever the operand's layout; a layout-changing copy is kept (Note
// [Layout-changing copies] in ir/bitwise_faithful.cpp) because what reads it
// may accumulate in another order than over its operand. Where what reads it is
// a chain of views into another contiguous copy, nothing accumulates over it:
// the outer copy's bits are the same with the inner copy bypassed. So
// `x.permute(o).contiguous().permute(o).contiguous()` (a permutation and its
// inverse, the layout restored) is the outer copy of permute(permute(x)), which
// the layout rules collapse to x (bitwise; the metamorphic generator's
// permute_chain). The inner copy stays for its other readers.
bool bypassInnerCopy(Rewriter &rw, Node *n) {
  if (!isContiguousCopy(*n) || n->outputs.size() != 1 || n->inputs.empty() || !n->inputs[0]) return false;
  std::vector<const Node *> chain;  // the views between the two copies, outermost first
  const Node *inner = n->inputs[0]->producer;
  while (inner && !isContiguousCopy(*inner)) {
    ElementMap m = opProps(inner->op).elements;
    if ((m != ElementMap::Reshape && m != ElementMap::Reorder) || inner->outputs.size() != 1 ||
        inner->inputs.empty() || !inner->inputs[0])
      return false;
    chain.push_back(inner);
    inner = inner->inputs[0]->producer;
  }
  if (!inner || inner->inputs.empty() || !inner->inputs[0] || inner->outputs.size() != 1 ||
      inner->inputs[0]->type != inner->outputs[0]->type)
    return false;
  Value *from = inner->inputs[0];
  bool real = rw.isReal(inner->outputs[0]);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Node &view = **it;
    std::vector<Value *> inputs = view.inputs;
    inputs[0] = from;
    real = real || rw.anyOutputReal(view);
    Node *rebuilt = rw.build(NodeSpec{view.op, inputs, view.attrs, {}, {}, view.loc}, real);
    if (rebuilt->outputs.size() != 1 || rebuilt->outputs[0]->type != view.outputs[0]->type) return false;
    from = rebuilt->outputs[0];
  }
  std::vector<Value *> inputs = n->inputs;
  inputs[0] = from;
  Node *copy = rw.build(NodeSpec{n->op, inputs, n->attrs, {}, {}, n->loc}, real || rw.anyOutputReal(*n));
  if (copy->outputs.size() != 1 || copy->outputs[0]->type != n->outputs[0]->type) return false;
  rw.replace(n->outputs[0], copy->outputs[0]);
  return true;
}

}  // namespace

bool dropNoOps(Rewriter &rw) {
  return rw.rewriteEach([&](Node *n) {
    if (bypassInnerCopy(rw, n)) return true;
    if (!isNoOp(*n)) return false;
    if (n->outputs.size() == 2 && !allTrueMask(rw, *n)) return false;
    rw.replace(n->outputs[0], n->inputs[0]);
    return true;
  });
}

}  // namespace torchtv
