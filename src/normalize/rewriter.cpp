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
  if (usersBuilt_) addUses(n);
  return n;
}

void Rewriter::addUses(Node *n) {
  for (const Value *in : n->inputs)
    if (in) users_[in].push_back(n);
}

// Note [Use index]
void Rewriter::replace(Value *from, Value *to) {
  if (from == to) return;
  if (isReal(from)) real_.insert(to);
  if (!usersBuilt_) {
    users_.clear();
    for (const auto &n : g_.nodes()) addUses(n.get());
    usersBuilt_ = true;
  }
  auto it = users_.find(from);
  if (it != users_.end()) {
    std::vector<Node *> readers = std::move(it->second);
    users_.erase(it);
    for (Node *n : readers)
      for (Value *&in : n->inputs)
        if (in == from) in = to;
    std::vector<Node *> &toReaders = users_[to];
    toReaders.insert(toReaders.end(), readers.begin(), readers.end());
  }
  for (size_t i = 0; i < g_.outputs().size(); ++i)
    if (g_.outputs()[i] == from) g_.setOutput(i, to);
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

std::optional<std::vector<int64_t>> concreteSizes(const Shape &s) {
  std::vector<int64_t> out;
  for (const Dim &d : s) {
    if (!d.isConcrete()) return std::nullopt;
    out.push_back(d.size());
  }
  return out;
}

}  // namespace torchtv
