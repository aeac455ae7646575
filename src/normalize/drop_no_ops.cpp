#include <set>

#include "src/normalize/passes.h"

namespace torchtv {

namespace {

// Ops that return their operand's values unchanged (aliases and copies).
const std::set<std::string> kAlwaysNoOp = {
    "aten::detach", "aten::alias", "aten::clone", "aten::contiguous", "aten::lift_fresh_copy",
};

// Ops that are the identity when the result has the operand's type. For these
// equal types imply equal element order: a view/reshape of an equal shape, an
// expand to the same shape, a cast to the same dtype, a squeeze that squeezes
// nothing, a slice with step 1 that keeps the whole dim, a cat of one tensor,
// a _reshape_alias (a reshape, Note [_reshape_alias is a reshape] in
// src/sem/layout.cpp) to the same shape.
const std::set<std::string> kNoOpWhenSameType = {
    "aten::view",    "aten::reshape", "aten::_unsafe_view", "aten::_reshape_alias", "aten::expand", "aten::to.dtype",
    "aten::squeeze", "aten::squeeze.dim", "aten::squeeze.dims", "aten::cat", "aten::t",
    "prims::convert_element_type",
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
  if (n.outputs.size() != 1 || n.inputs.empty() || !n.inputs[0]) return false;
  const Value *in = n.inputs[0], *out = n.outputs[0];
  if (in->type != out->type) return false;
  if (kAlwaysNoOp.count(n.op)) return true;
  if (n.op == "aten::cat") return n.inputs.size() == 1;
  if (n.op == "aten::t") return in->type.rank() < 2;
  if (kNoOpWhenSameType.count(n.op)) return true;
  if (n.op == "aten::_to_copy") return isStrided(n);
  if (n.op == "aten::permute") return identityPermutation(n);
  if (n.op == "aten::transpose.int") {
    int64_t r = in->type.rank();
    return wrapDim(n.attr("dim0").asInt(), r) == wrapDim(n.attr("dim1").asInt(), r);
  }
  if (n.op == "aten::slice.Tensor") return n.attr("step").asInt() == 1;
  if (n.op == "aten::flip") return n.attr("dims").asInts().empty();
  return false;
}

}  // namespace

bool dropNoOps(Rewriter &rw) {
  bool changed = false;
  for (Node *n : rw.snapshot()) {
    if (rw.isReplaced(n) || !isNoOp(*n)) continue;
    rw.replace(n->outputs[0], n->inputs[0]);
    rw.markReplaced(n);
    changed = true;
  }
  return changed;
}

}  // namespace torchtv
