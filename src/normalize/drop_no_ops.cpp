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

}  // namespace

bool dropNoOps(Rewriter &rw) {
  return rw.rewriteEach([&](Node *n) {
    if (!isNoOp(*n)) return false;
    if (n->outputs.size() == 2 && !allTrueMask(rw, *n)) return false;
    rw.replace(n->outputs[0], n->inputs[0]);
    return true;
  });
}

}  // namespace torchtv
