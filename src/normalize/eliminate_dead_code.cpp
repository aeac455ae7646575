#include <unordered_set>

#include "ir/rewrite.h"
#include "src/match/divergence.h"
#include "src/normalize/passes.h"

namespace torchtv {

// Nodes no graph output depends on.
bool eliminateDeadCode(Graph &g) {
  std::unordered_set<const Node *> keep = liveNodes(g);
  size_t before = g.nodes().size();
  filterNodes(g, [&](const Node &n) { return keep.count(&n) != 0; });
  return g.nodes().size() != before;
}

}  // namespace torchtv
