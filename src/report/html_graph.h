// One side of the HTML diff: the graph as DOT (for Graphviz) or as a table,
// with the ids that the page's script pairs across sides.
#pragma once

#include <string>
#include <vector>

#include "src/report/diff_view.h"

namespace torchtv {

// Element ids: "<side>-n<index into SideView::nodes>", "<side>-out<i>".
std::string viewNodeId(const std::string &side, int index);
std::string outputNodeId(const std::string &side, size_t output);

// Note [Collapsed view]
// A big graph is first shown around its divergence: the residual nodes and
// everything within `radius` edges of them (either direction), or, when
// nothing diverges, the neighbourhood of the outputs. The hidden matched nodes
// are folded into one placeholder node, so the drawing stays small whatever
// the size of the model; the full drawing is offered folded below it.
std::vector<bool> neighbourhood(const SideView &side, int radius);

// `visible` empty: every node. `idPrefix` makes the ids of a second drawing of
// the same side unique ("full-").
std::string sideToDot(const SideView &side, const std::string &sideName, const std::vector<OutputResult> &outputs,
                      const std::vector<bool> &visible, const std::string &idPrefix);

// The same content as an HTML table, for when Graphviz is missing.
std::string sideToTable(const SideView &side, const std::string &sideName, const std::vector<OutputResult> &outputs);

// What a node shows: "%y = aten::mul.Tensor", "f32[4,16]", "model.py:12".
struct NodeLabel {
  std::string title, type, loc;
};
NodeLabel labelOf(const ViewNode &n, const SideView &side);

}  // namespace torchtv
