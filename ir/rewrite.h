// Graph surgery for passes: rewiring uses, restoring topological order,
// copying graphs. Every new node is still added through buildNode.
#pragma once

#include <memory>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/graph.h"

namespace torchtv {

// Every use of `from` (node operands and graph outputs) now reads `to`.
//   Given:   %b = neg(%a); %c = relu(%b); return %b
//   Execute: replaceAllUsesWith(g, %b, %a)
//   Result:  %c = relu(%a); return %a   (%b's node is now dead)
void replaceAllUsesWith(Graph &g, Value *from, Value *to);

// Reorders the node list so that every node follows its operands' producers,
// keeping the existing order where it is already valid (nodes appended by
// buildNode during a rewrite move up to where they are first needed).
// Throws std::logic_error on a cycle (a bug in a pass).
void sortTopologically(Graph &g);

// Keeps only the nodes for which `keep` is true (their order is unchanged).
template <typename Pred>
void filterNodes(Graph &g, Pred keep) {
  auto nodes = g.takeNodes();
  std::vector<std::unique_ptr<Node>> kept;
  for (auto &n : nodes)
    if (keep(*n)) kept.push_back(std::move(n));
  g.setNodes(std::move(kept));
}

// A deep copy: same names, types, attributes and source locations. `map`
// receives old value -> new value.
std::unique_ptr<Graph> cloneGraph(const Graph &g,
                                  std::unordered_map<const Value *, Value *> *map = nullptr);

// A resolver that knows every custom op `g` calls, so passes can build more
// nodes of those ops.
OpResolver resolverFor(const Graph &g);

}  // namespace torchtv
