#include "src/match/divergence.h"

#include <unordered_set>

namespace torchtv {

std::vector<const Node *> coneOf(const Graph &g, const Value *out) {
  std::unordered_set<const Node *> needed;
  std::vector<const Node *> stack;
  if (out->producer) stack.push_back(out->producer);
  while (!stack.empty()) {
    const Node *n = stack.back();
    stack.pop_back();
    if (!needed.insert(n).second) continue;
    for (const Value *in : n->inputs)
      if (in && in->producer) stack.push_back(in->producer);
  }
  std::vector<const Node *> order;
  for (const auto &n : g.nodes())
    if (needed.count(n.get())) order.push_back(n.get());
  return order;
}

std::unordered_set<int> numbersOf(const Graph &g, const ValueNumbering &vn) {
  std::unordered_set<int> out;
  for (const Value *v : g.inputs()) out.insert(vn.number(v));
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs) out.insert(vn.number(v));
  return out;
}

const Node *firstUnmatchedNode(const Graph &g, const Value *out, const ValueNumbering &vn,
                               const std::unordered_set<int> &other) {
  for (const Node *n : coneOf(g, out)) {
    bool matched = false;
    for (const Value *v : n->outputs) matched = matched || other.count(vn.number(v));
    if (!matched) return n;
  }
  return nullptr;
}

}  // namespace torchtv
