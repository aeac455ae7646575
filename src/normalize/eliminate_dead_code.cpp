#include <unordered_set>

#include "ir/rewrite.h"
#include "src/normalize/passes.h"

namespace torchtv {

// Nodes no graph output depends on. Nodes are in topological order, so one
// backward sweep finds every live node.
bool eliminateDeadCode(Graph &g) {
  std::unordered_set<const Value *> live(g.outputs().begin(), g.outputs().end());
  std::unordered_set<const Node *> keep;
  for (auto it = g.nodes().rbegin(); it != g.nodes().rend(); ++it) {
    const Node *n = it->get();
    bool used = false;
    for (const Value *v : n->outputs) used = used || live.count(v);
    if (!used) continue;
    keep.insert(n);
    for (const Value *in : n->inputs)
      if (in) live.insert(in);
  }
  size_t before = g.nodes().size();
  filterNodes(g, [&](const Node &n) { return keep.count(&n) != 0; });
  return g.nodes().size() != before;
}

}  // namespace torchtv
