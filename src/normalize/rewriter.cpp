#include "src/normalize/rewriter.h"

#include "ir/rewrite.h"

namespace torchtv {

Rewriter::Rewriter(Graph &g, std::unordered_set<const Value *> &realValues, const OpResolver *extraOps)
    : g_(g), resolver_(resolverFor(g)), real_(realValues) {
  if (extraOps)
    for (const auto &[name, schema] : extraOps->custom())
      if (!resolver_.resolve(name)) resolver_.declare(schema);
}

Node *Rewriter::build(NodeSpec spec, bool real) {
  Node *n = buildNode(g_, resolver_, std::move(spec));
  if (real)
    for (const Value *v : n->outputs) real_.insert(v);
  return n;
}

void Rewriter::replace(Value *from, Value *to) {
  if (from == to) return;
  if (isReal(from)) real_.insert(to);
  replaceAllUsesWith(g_, from, to);
}

bool Rewriter::anyOutputReal(const Node &n) const {
  for (const Value *v : n.outputs)
    if (isReal(v)) return true;
  return false;
}

std::vector<Node *> Rewriter::snapshot() const {
  std::vector<Node *> out;
  for (const auto &n : g_.nodes()) out.push_back(n.get());
  return out;
}

}  // namespace torchtv
