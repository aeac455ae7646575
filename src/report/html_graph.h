// One side of the HTML diff: the graph as DOT (for Graphviz) or as a table,
// with the ids that the page's script pairs across sides.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/report/diff_view.h"
#include "src/report/html_fold.h"

namespace torchtv {

// Element ids: "<side>-n<index into SideView::nodes>", "<side>-out<i>".
std::string viewNodeId(const std::string &side, int index);
std::string outputNodeId(const std::string &side, size_t output);

// Note [Collapsed view]
// A big graph is first shown around its divergence, and only in the cone of
// the outputs that failed (not equivalent): the first divergences (sites) of
// those outputs and everything in that cone within `radius` edges of them
// (either direction), at most `limit` nodes, nearest first. Without sites: the
// residual nodes of the cone; without failing outputs: the outputs. Everything
// else (proven regions, the residual region downstream of the divergence, other
// outputs' cones) is folded into one placeholder node, so the drawing stays
// small whatever the size of the model (at 64 layers as at 1); the full
// drawing is offered folded below it when it is small enough for dot.
// `alsoShow`: nodes seeded as the divergences are (the first differing
// intermediate, Note [Localized counterexample]).
std::vector<bool> neighbourhood(const SideView &side, const std::vector<OutputResult> &outputs, int radius,
                                size_t limit = 120, const std::vector<int> &alsoShow = {});

// `visible` empty: every node. `idPrefix` makes the ids of a second drawing of
// the same side unique ("full-"). `folding`: collapsed groups are drawn as one
// box each (Note [Folded layers]).
std::string sideToDot(const SideView &side, const std::string &sideName, const std::vector<OutputResult> &outputs,
                      const std::vector<bool> &visible, const std::string &idPrefix, const Folding *folding = nullptr);

// The same content as an HTML table, for when Graphviz is missing (`visible`
// as for sideToDot: a big graph's table has its collapsed view's rows only; a
// collapsed group is a header row, its rows hidden, where `groupMembers` has them).
std::string sideToTable(const SideView &side, const std::string &sideName, const std::vector<OutputResult> &outputs,
                        const std::vector<bool> &visible = {}, const Folding *folding = nullptr,
                        const std::vector<bool> &groupMembers = {});

// What a node shows: "%y = aten::mul.Tensor", "f32[4,16]", "model.py:12".
struct NodeLabel {
  std::string title, type, loc;
  std::string attrs;  // constant arguments, shortened: "other=1e-05, alpha=1"
};
NodeLabel labelOf(const ViewNode &n, const SideView &side);

// Each drawn node's details for the page's side panel (Note [Side panel]), as a
// JSON object keyed by element id: title, type, source, status, every constant
// argument in full.
nlohmann::json nodesJson(const SideView &side, const std::string &sideName, const std::vector<bool> &visible);

}  // namespace torchtv
