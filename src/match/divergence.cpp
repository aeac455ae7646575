#include "src/match/divergence.h"

#include <unordered_map>
#include <unordered_set>

namespace torchtv {

std::unordered_set<int> numbersOf(const Graph &g, const ValueNumbering &vn) {
  std::unordered_set<int> out;
  for (const Value *v : g.inputs()) out.insert(vn.number(v));
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs) out.insert(vn.number(v));
  return out;
}

std::vector<const Node *> firstUnmatchedNodes(const Graph &g, const ValueNumbering &vn,
                                              const std::unordered_set<int> &other) {
  // first[k]: the earliest unmatched node in the cone of node k. Nodes are in
  // topological order, so operands' entries are final when node k is reached.
  std::unordered_map<const Node *, size_t> position;
  std::vector<const Node *> first(g.nodes().size(), nullptr);
  auto earlier = [&](const Node *a, const Node *b) { return !b || (a && position.at(a) < position.at(b)); };
  for (size_t k = 0; k < g.nodes().size(); ++k) {
    const Node *n = g.nodes()[k].get();
    position[n] = k;
    bool matched = false;
    for (const Value *v : n->outputs) matched = matched || other.count(vn.number(v));
    // Note [Divergence through unmatched values]: a matched node ends the walk; what feeds it
    // is an equal formula's own detail, not a difference.
    first[k] = nullptr;
    if (matched) continue;
    const Node *best = n;
    for (const Value *in : n->inputs) {
      if (!in || !in->producer) continue;
      auto it = position.find(in->producer);
      if (it == position.end()) continue;
      const Node *f = first[it->second];
      if (f && earlier(f, best)) best = f;
    }
    first[k] = best;
  }
  std::vector<const Node *> out;
  for (const Value *v : g.outputs()) {
    auto it = v->producer ? position.find(v->producer) : position.end();
    out.push_back(it == position.end() ? nullptr : first[it->second]);
  }
  return out;
}

}  // namespace torchtv
