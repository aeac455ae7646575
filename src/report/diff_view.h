// What the diff views (HTML, --explain) show of a matched pair of graphs:
// each node's status and its counterpart on the other side.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/verify/verdict.h"

namespace torchtv {

enum class NodeStatus {
  Matched,     // some result has a proven-equal counterpart on the other side
  Residual,    // no counterpart: part of a region the matcher could not pair
  Divergence,  // the first residual node of some output (OutputResult's site)
  Dead,        // no output depends on it
};

// A graph input or a node, keyed by its first value.
struct ViewNode {
  const Value *value = nullptr;  // the input, or the node's first result
  const Node *node = nullptr;    // null for graph inputs
  NodeStatus status = NodeStatus::Matched;
  const Value *partner = nullptr;  // the counterpart's key value on the other side
  std::vector<int> operands;       // indices into SideView::nodes
};

struct SideView {
  const Graph *graph = nullptr;
  std::vector<ViewNode> nodes;  // inputs first, then nodes in topological order
  std::map<const Value *, int> indexOf;  // every value -> its ViewNode
  std::vector<int> outputNodes;          // ViewNode of each graph output
};

struct DiffView {
  SideView reference, production;
};

// Builds both sides from the result's match map (Note [Match map]). A value
// missing from the map (a result that was never matched) counts as residual.
DiffView buildDiffView(const CheckResult &r, const Graph &reference, const Graph &production);

// The residual nodes in the cone of output `i` on one side, in topological
// order, and the matched nodes that feed them (the region's frontier).
struct Region {
  std::vector<int> frontier;
  std::vector<int> residual;
};
Region residualRegion(const SideView &side, size_t output);

std::string_view statusName(NodeStatus s);  // "matched", "residual", ...

}  // namespace torchtv
