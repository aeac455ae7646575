// Note [Canonical layout ops]
// Eager code, torch.export and its decompositions spell one layout operation
// several ways, and value numbering keys on the op and its attributes, so a
// model and its own decomposition diverge at the first spelling that differs
// (a transformer's attention: transpose(1, 2) against permute([0, 2, 1, 3]),
// view([-1, 16, 8]) against view([4, 16, 8]), reshape against view, split
// against split_with_sizes). One spelling each, all bitwise (the IR is
// logical: a value is its elements in row-major order, Note [_reshape_alias
// is a reshape] in src/sem/layout.cpp):
//  - view, reshape, _unsafe_view, _reshape_alias of a concrete result: view with the result's
//    sizes (no -1), of the first view's operand where it views a view;
//  - permute that swaps two dims: transpose.int(i, j) with 0 <= i < j, and a
//    transpose's dims likewise ordered and non-negative;
//  - split.Tensor: split_with_sizes with each piece's size;
//  - a permute or transpose of a permute or transpose: one permute of the inner one's operand
//    (result dim k is operand dim inner[outer[k]]), and a permutation that keeps the dims of
//    size other than 1 in their order: a view with the result's sizes, as it moves no element
//    in row-major order (einsum writes `bhd,bhdm->bhm` as transpose, permute and view; the
//    state the view reads is then the reference's own, Note [Views of merged values] in
//    src/match/value_numbering.h).
#include "src/normalize/passes.h"

#include "ir/op_registry.h"

namespace torchtv {

namespace {

// Builds `spec` and replaces n's outputs with it, if every result type is unchanged. `real`:
// the new node also stands for a real-level value (Note [Levels of rewrites]) that it bypasses.
bool replaceWith(Rewriter &rw, Node *n, NodeSpec spec, bool real = false) {
  spec.loc = n->loc;
  Node *s = rw.build(std::move(spec), real || rw.anyOutputReal(*n));
  if (s->outputs.size() != n->outputs.size()) return false;
  for (size_t i = 0; i < s->outputs.size(); ++i)
    if (s->outputs[i]->type != n->outputs[i]->type) return false;
  for (size_t i = 0; i < s->outputs.size(); ++i) rw.replace(n->outputs[i], s->outputs[i]);
  return true;
}

bool canonicalView(Rewriter &rw, Node *n) {
  if (n->op != "aten::view" && n->op != "aten::reshape" && n->op != "aten::_unsafe_view" &&
      n->op != "aten::_reshape_alias")
    return false;
  auto sizes = concreteSizes(n->outputs[0]->type.shape);
  if (!sizes) return false;
  // A view of a view is one view of the first one's operand (both keep the row-major order).
  Value *from = n->inputs[0];
  const Node *p = from ? from->producer : nullptr;
  bool ofView = p && p->op == "aten::view" && p->inputs[0];
  if (ofView) from = p->inputs[0];
  const char *arg = n->op == "aten::reshape" ? "shape" : "size";
  if (!ofView && n->op == "aten::view" && n->attr(arg).asInts() == *sizes) return false;
  return replaceWith(rw, n, NodeSpec{"aten::view", {from}, {{"size", *sizes}}, {}, {}, {}},
                     ofView && rw.isReal(p->outputs[0]));
}

bool canonicalTranspose(Rewriter &rw, Node *n) {
  int64_t rank = n->inputs.empty() || !n->inputs[0] ? 0 : n->inputs[0]->type.rank();
  std::optional<int64_t> i, j;
  if (n->op == "aten::permute") {
    const std::vector<int64_t> &dims = n->attr("dims").asInts();
    if (static_cast<int64_t>(dims.size()) != rank) return false;
    std::vector<int64_t> moved;
    for (int64_t k = 0; k < rank; ++k) {
      auto d = wrapDim(dims[k], rank);
      if (!d) return false;
      if (*d != k) moved.push_back(k);
    }
    if (moved.size() != 2) return false;
    i = moved[0];
    j = moved[1];
  } else if (n->op == "aten::transpose.int") {
    i = wrapDim(n->attr("dim0").asInt(), rank);
    j = wrapDim(n->attr("dim1").asInt(), rank);
    if (!i || !j || *i == *j) return false;
    if (*i > *j) std::swap(i, j);
    if (n->attr("dim0").asInt() == *i && n->attr("dim1").asInt() == *j) return false;
  } else {
    return false;
  }
  return replaceWith(rw, n, NodeSpec{"aten::transpose.int", {n->inputs[0]}, {{"dim0", *i}, {"dim1", *j}}, {}, {}, {}});
}

// The permutation a permute or transpose applies (result dim k is operand dim perm[k]).
std::optional<std::vector<int64_t>> permutationOf(const Node *n) {
  if (!n || n->inputs.empty() || !n->inputs[0]) return std::nullopt;
  int64_t rank = n->inputs[0]->type.rank();
  std::vector<int64_t> perm(static_cast<size_t>(rank));
  if (n->op == "aten::permute") {
    const std::vector<int64_t> &dims = n->attr("dims").asInts();
    if (static_cast<int64_t>(dims.size()) != rank) return std::nullopt;
    for (int64_t k = 0; k < rank; ++k) {
      auto d = wrapDim(dims[k], rank);
      if (!d) return std::nullopt;
      perm[k] = *d;
    }
    return perm;
  }
  if (n->op == "aten::transpose.int") {
    auto i = wrapDim(n->attr("dim0").asInt(), rank), j = wrapDim(n->attr("dim1").asInt(), rank);
    if (!i || !j) return std::nullopt;
    for (int64_t k = 0; k < rank; ++k) perm[k] = k;
    std::swap(perm[*i], perm[*j]);
    return perm;
  }
  return std::nullopt;
}

bool canonicalPermutationChain(Rewriter &rw, Node *n) {
  std::optional<std::vector<int64_t>> outer = permutationOf(n);
  if (!outer) return false;
  Value *from = n->inputs[0];
  std::vector<int64_t> perm = *outer;
  const Node *innerNode = from->producer;
  std::optional<std::vector<int64_t>> inner = permutationOf(innerNode);
  if (inner) {
    for (size_t k = 0; k < perm.size(); ++k) perm[k] = (*inner)[(*outer)[k]];
    from = innerNode->inputs[0];
  }
  // the new node bypasses the inner one (Note [Levels of rewrites])
  const bool real = inner && rw.isReal(innerNode->outputs[0]);
  // The dims of size other than 1, in the result's order: ascending when no element moves.
  int64_t last = -1;
  bool keepsOrder = true;
  for (int64_t d : perm) {
    const Dim &size = from->type.shape[d];
    if (!size.isConcrete()) return false;
    if (size.size() == 1) continue;
    keepsOrder = keepsOrder && d > last;
    last = d;
  }
  if (keepsOrder) {
    auto sizes = concreteSizes(n->outputs[0]->type.shape);
    return sizes && replaceWith(rw, n, NodeSpec{"aten::view", {from}, {{"size", *sizes}}, {}, {}, {}}, real);
  }
  if (!inner) return false;
  return replaceWith(rw, n, NodeSpec{"aten::permute", {from}, {{"dims", perm}}, {}, {}, {}}, real);
}

bool canonicalSplit(Rewriter &rw, Node *n) {
  if (n->op != "aten::split.Tensor") return false;
  int64_t rank = n->inputs[0]->type.rank();
  auto dim = wrapDim(n->attr("dim").asInt(), rank);
  if (!dim) return false;
  std::vector<int64_t> sizes;
  for (const Value *piece : n->outputs) {
    const Dim &d = piece->type.shape[*dim];
    if (!d.isConcrete()) return false;
    sizes.push_back(d.size());
  }
  return replaceWith(rw, n,
                     NodeSpec{"aten::split_with_sizes", {n->inputs[0]}, {{"split_sizes", sizes}, {"dim", *dim}}, {}, {}, {}});
}

}  // namespace

bool canonicalizeLayout(Rewriter &rw) {
  return rw.rewriteEach([&](Node *n) {
    if (n->inputs.empty() || !n->inputs[0] || n->outputs.empty()) return false;
    return canonicalView(rw, n) || canonicalPermutationChain(rw, n) || canonicalTranspose(rw, n) ||
           canonicalSplit(rw, n);
  });
}

}  // namespace torchtv
