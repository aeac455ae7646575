#include "src/report/html_graph.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "ir/attribute.h"
#include "src/report/describe.h"
#include "src/report/escape.h"

namespace torchtv {

namespace {

struct Colors {
  const char *fill, *stroke, *style;
};

Colors colorsOf(NodeStatus status) {
  switch (status) {
  case NodeStatus::Matched: return {"#e8f5e9", "#43a047", "rounded,filled"};
  case NodeStatus::Residual: return {"#fff3e0", "#ef6c00", "rounded,filled"};
  case NodeStatus::Divergence: return {"#ffcdd2", "#c62828", "rounded,filled,bold"};
  case NodeStatus::Dead: return {"#f5f5f5", "#9e9e9e", "rounded,filled,dashed"};
  }
  return {"#ffffff", "#000000", "rounded"};
}

Colors colorsOf(const ViewNode &n) {
  if (!n.node && n.status == NodeStatus::Matched) return {"#e3f2fd", "#1e88e5", "rounded,filled"};
  return colorsOf(n.status);
}

// A folded group's colour: its most telling member's (a divergence, else a
// residual node, else matched, else dead).
NodeStatus groupStatus(const SideView &side, const LayerGroup &g) {
  auto rank = [](NodeStatus s) {
    switch (s) {
    case NodeStatus::Divergence: return 3;
    case NodeStatus::Residual: return 2;
    case NodeStatus::Matched: return 1;
    case NodeStatus::Dead: return 0;
    }
    return 0;
  };
  NodeStatus worst = NodeStatus::Dead;
  for (int i = g.first; i < g.first + g.size; ++i)
    if (rank(side.nodes[i].status) > rank(worst)) worst = side.nodes[i].status;
  return worst;
}

const char *verdictColor(Verdict v) {
  switch (v) {
  case Verdict::Equivalent: return "#c8e6c9";
  case Verdict::NotEquivalent: return "#ffcdd2";
  case Verdict::Unknown: return "#fff9c4";
  case Verdict::Error: return "#ffcdd2";
  }
  return "#ffffff";
}

std::string verdictOf(const std::vector<OutputResult> &outputs, size_t i) {
  return i < outputs.size() ? std::string(verdictName(outputs[i].verdict)) : "";
}

// In a collapsed view, an output is drawn when it failed or its node is drawn
// (a 64-layer train step has hundreds of proven gradient outputs).
bool shownOutput(const SideView &side, const std::vector<OutputResult> &outputs, const std::vector<bool> &visible,
                 size_t o) {
  if (visible.empty() || o >= outputs.size() || outputs[o].verdict != Verdict::Equivalent) return true;
  return visible[side.outputNodes[o]];
}

}  // namespace

std::string viewNodeId(const std::string &side, int index) { return side + "-n" + std::to_string(index); }
std::string outputNodeId(const std::string &side, size_t output) { return side + "-out" + std::to_string(output); }

NodeLabel labelOf(const ViewNode &n, const SideView &side) {
  NodeLabel label;
  if (!n.node) {
    size_t pos = std::find(side.graph->inputs().begin(), side.graph->inputs().end(), n.value) -
                 side.graph->inputs().begin();
    label.title = "%" + n.value->name + " (input " + std::to_string(pos) + ")";
  } else {
    label.title = "%" + n.value->name + " = " + n.node->op;
    if (n.node->outputs.size() > 1) label.title += " (+" + std::to_string(n.node->outputs.size() - 1) + " results)";
    if (n.node->loc.known()) label.loc = n.node->loc.str();
  }
  label.type = n.value->type.str();
  if (n.node) label.attrs = attributesText(*n.node, 48, false);
  return label;
}

nlohmann::json nodesJson(const SideView &side, const std::string &sideName, const std::vector<bool> &visible) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t i = 0; i < side.nodes.size(); ++i) {
    if (!visible.empty() && !visible[i]) continue;
    const ViewNode &n = side.nodes[i];
    NodeLabel label = labelOf(n, side);
    nlohmann::json attrs = nlohmann::json::object();
    if (n.node)
      for (const auto &[name, value] : n.node->attrs)
        if (!value.isNone()) attrs[name] = value.str();
    out[viewNodeId(sideName, static_cast<int>(i))] = {{"title", label.title}, {"type", label.type},
                                                       {"loc", label.loc}, {"status", std::string(statusName(n.status))},
                                                       {"attrs", attrs}};
  }
  return out;
}

std::vector<bool> neighbourhood(const SideView &side, const std::vector<OutputResult> &outputs, int radius,
                                size_t limit, const std::vector<int> &alsoShow) {
  size_t count = side.nodes.size();
  // The cone of the failing outputs (all outputs when none failed).
  std::vector<int> roots;
  for (size_t o = 0; o < side.outputNodes.size(); ++o)
    if (o >= outputs.size() || outputs[o].verdict != Verdict::Equivalent) roots.push_back(side.outputNodes[o]);
  bool anyFailing = !roots.empty();
  if (!anyFailing) roots = side.outputNodes;
  std::vector<bool> cone(count);
  for (std::vector<int> stack = roots; !stack.empty();) {
    int i = stack.back();
    stack.pop_back();
    if (cone[i]) continue;
    cone[i] = true;
    for (int o : side.nodes[i].operands) stack.push_back(o);
  }
  std::vector<std::vector<int>> adjacent(count);
  for (size_t i = 0; i < count; ++i)
    for (int o : side.nodes[i].operands)
      if (cone[i] && cone[o]) {
        adjacent[i].push_back(o);
        adjacent[o].push_back(static_cast<int>(i));
      }
  std::vector<int> frontier;
  auto seedWith = [&](NodeStatus status) {
    for (size_t i = 0; i < count; ++i)
      if (cone[i] && side.nodes[i].status == status) frontier.push_back(static_cast<int>(i));
  };
  if (anyFailing) seedWith(NodeStatus::Divergence);
  if (anyFailing && frontier.empty()) seedWith(NodeStatus::Residual);
  if (frontier.empty()) frontier = roots;
  for (int i : alsoShow)
    if (cone[i]) frontier.push_back(i);
  std::vector<bool> visible(count);
  size_t shown = 0;
  for (int i : frontier)
    if (!visible[i]) visible[i] = true, ++shown;
  for (int d = 1; d <= radius && shown < limit; ++d) {
    std::vector<int> next;
    for (int i : frontier)
      for (int j : adjacent[i])
        if (!visible[j] && shown < limit) visible[j] = true, ++shown, next.push_back(j);
    frontier = std::move(next);
  }
  return visible;
}

std::string sideToDot(const SideView &side, const std::string &sideName, const std::vector<OutputResult> &outputs,
                      const std::vector<bool> &visible, const std::string &idPrefix, const Folding *folding) {
  auto shown = [&](int i) { return visible.empty() || visible[i]; };
  auto folded = [&](int i) { return folding && !shown(i) && folding->folds(i); };
  // What stands for node i in the drawing: itself, its group's box, or the placeholder.
  auto drawnAs = [&](int i) {
    return shown(i) ? "n" + std::to_string(i) : folded(i) ? folding->boxOf(i) : std::string("folded");
  };
  std::string p = idPrefix + sideName;
  std::string dot = "digraph " + quote(sideName) + " {\n  id=\"" + p + "-graph\";\n";
  dot += "  rankdir=TB; nodesep=0.25; ranksep=0.35;\n";
  dot += "  node [shape=box, fontname=\"DejaVu Sans\", fontsize=10, margin=\"0.12,0.04\"];\n";
  dot += "  edge [color=\"#607d8b\", arrowsize=0.6];\n";
  size_t hidden = 0, edges = 0;
  std::set<int> fedByHidden;
  std::set<std::pair<std::string, std::string>> boxEdges;  // at a group's box, once each
  for (size_t i = 0; i < side.nodes.size(); ++i) {
    const ViewNode &n = side.nodes[i];
    int index = static_cast<int>(i);
    if (!shown(index)) {
      if (!folded(index)) {
        ++hidden;
        continue;
      }
      // Not from the placeholder: the parameters feed every layer, and those
      // edges would tie every box to it.
      for (int o : n.operands)
        if ((shown(o) || folded(o)) && drawnAs(o) != drawnAs(index))
          boxEdges.insert({drawnAs(o), drawnAs(index)});
      continue;
    }
    NodeLabel label = labelOf(n, side);
    std::string text = label.title + "\n" + label.type + (label.attrs.empty() ? "" : "\n" + label.attrs) +
                       (label.loc.empty() ? "" : "\n" + label.loc);
    Colors c = colorsOf(n);
    dot += "  n" + std::to_string(i) + " [id=\"" + idPrefix + viewNodeId(sideName, index) + "\", class=\"tv-" +
           std::string(statusName(n.status)) + "\", label=" + quote(text) + ", style=\"" + c.style +
           "\", fillcolor=\"" + c.fill + "\", color=\"" + c.stroke + "\", tooltip=" +
           quote(std::string(statusName(n.status))) + "];\n";
    for (int o : n.operands) {
      if (shown(o)) dot += "  n" + std::to_string(o) + " -> n" + std::to_string(i) + " [id=\"" + p + "-e" +
                           std::to_string(edges++) + "\"];\n";
      else if (folded(o)) boxEdges.insert({drawnAs(o), drawnAs(index)});
      else fedByHidden.insert(index);
    }
  }
  if (hidden) {
    dot += "  folded [id=\"" + p + "-folded\", class=\"tv-folded\", shape=note, style=filled, fillcolor=\"#eceff1\", "
           "label=\"" + std::to_string(hidden) + " nodes folded\\n(outside the failing cone or\\nfurther from the divergence)\"];\n";
    for (int i : fedByHidden)
      dot += "  folded -> n" + std::to_string(i) + " [style=dashed, id=\"" + p + "-e" + std::to_string(edges++) +
             "\"];\n";
  }
  for (size_t r = 0; folding && r < folding->ranges.size(); ++r) {
    const GroupRange &range = folding->ranges[r];
    int size = 0;
    for (int g = range.first; g <= range.last; ++g) size += folding->groups[g].size;
    dot += "  r" + std::to_string(r) + " [id=\"" + idPrefix + rangeId(sideName, static_cast<int>(r)) +
           "\", class=\"tv-group tv-range\", shape=box3d, style=filled, fillcolor=\"#eceff1\", color=\"#546e7a\", "
           "tooltip=\"repetitions of a repeated part; click to list them\", label=" +
           quote(rangeLabel(*folding, range) + "\n" + std::to_string(size) + " nodes (click to expand)") + "];\n";
  }
  for (size_t g = 0; folding && g < folding->groups.size(); ++g) {
    if (!folding->collapsed[g] || folding->rangeOf[g] >= 0) continue;
    const LayerGroup &group = folding->groups[g];
    NodeStatus status = groupStatus(side, group);
    Colors c = colorsOf(status);
    dot += "  g" + std::to_string(g) + " [id=\"" + idPrefix + groupId(sideName, static_cast<int>(g)) +
           "\", class=\"tv-group tv-group-" + std::string(statusName(status)) + "\", shape=box3d, style=filled, fillcolor=\"" +
           c.fill + "\", color=\"" + c.stroke + "\", tooltip=\"a repeated part of the graph; click to expand\", label=" +
           quote(groupLabel(group) + "\n" + std::to_string(group.size) + " nodes (click to expand)") + "];\n";
  }
  for (const auto &[from, to] : boxEdges)
    dot += "  " + from + " -> " + to + " [id=\"" + p + "-e" + std::to_string(edges++) + "\"];\n";
  for (size_t o = 0; o < side.outputNodes.size(); ++o) {
    if (!shownOutput(side, outputs, visible, o)) continue;
    std::string name = o < side.graph->outputNames().size() ? side.graph->outputNames()[o] : std::to_string(o);
    std::string verdict = verdictOf(outputs, o);
    dot += "  out" + std::to_string(o) + " [id=\"" + idPrefix + outputNodeId(sideName, o) +
           "\", class=\"tv-output\", shape=ellipse, style=filled, fillcolor=\"" +
           (o < outputs.size() ? verdictColor(outputs[o].verdict) : "#ffffff") + "\", label=" +
           quote("output " + name + (verdict.empty() ? "" : "\n" + verdict)) + "];\n";
    int at = side.outputNodes[o];
    if (shown(at) || folded(at))
      dot += "  " + drawnAs(at) + " -> out" + std::to_string(o) + " [id=\"" + p + "-e" + std::to_string(edges++) + "\"];\n";
  }
  return dot + "}\n";
}

std::string sideToTable(const SideView &side, const std::string &sideName, const std::vector<OutputResult> &outputs,
                        const std::vector<bool> &visible, const Folding *folding,
                        const std::vector<bool> &groupMembers) {
  std::string html = "<table class=\"nodes\"><thead><tr><th>value</th><th>op</th><th>type</th><th>constants</th>"
                     "<th>source</th><th>status</th><th>operands</th></tr></thead><tbody>\n";
  size_t hidden = 0;
  for (size_t i = 0; i < side.nodes.size(); ++i) {
    const ViewNode &n = side.nodes[i];
    int index = static_cast<int>(i);
    bool inBox = folding && (visible.empty() || !visible[i]) && folding->folds(index);
    std::string group = inBox ? groupId(sideName, folding->groupOf[i]) : "";
    if (inBox && folding->groups[folding->groupOf[i]].first == index) {
      const LayerGroup &g = folding->groups[folding->groupOf[i]];
      html += "<tr id=\"" + group + "\" class=\"tv-group tv-group-row\"><td colspan=\"7\">&#9656; " +
              xmlEscape(groupLabel(g)) + ": " + std::to_string(g.size) + " nodes folded (click to expand)</td></tr>\n";
    }
    if (inBox ? i >= groupMembers.size() || !groupMembers[i] : !visible.empty() && !visible[i]) {
      hidden += !inBox;
      continue;
    }
    NodeLabel label = labelOf(n, side);
    std::string operands;
    for (int o : n.operands) operands += (operands.empty() ? "%" : ", %") + side.nodes[o].value->name;
    html += "<tr id=\"" + viewNodeId(sideName, index) + "\" class=\"node tv-" + std::string(statusName(n.status)) + "\"" +
            (inBox ? " data-group=\"" + group + "\" hidden" : "") + "><td>%" + xmlEscape(n.value->name) + "</td><td>" +
            xmlEscape(n.node ? n.node->op : "input") + "</td><td>" + xmlEscape(label.type) + "</td><td>" +
            xmlEscape(n.node ? attributesText(*n.node, 0, false) : "") + "</td><td>" + xmlEscape(label.loc) + "</td><td>" + std::string(statusName(n.status)) + "</td><td>" +
            xmlEscape(operands) + "</td></tr>\n";
  }
  for (size_t o = 0; o < side.outputNodes.size(); ++o)
    if (shownOutput(side, outputs, visible, o))
      html += "<tr id=\"" + outputNodeId(sideName, o) + "\" class=\"node tv-output\"><td>output " +
            xmlEscape(o < side.graph->outputNames().size() ? side.graph->outputNames()[o] : "") + "</td><td>return</td><td>" +
            xmlEscape(side.nodes[side.outputNodes[o]].value->type.str()) + "</td><td></td><td></td><td>" +
            xmlEscape(verdictOf(outputs, o)) + "</td><td>%" + xmlEscape(side.nodes[side.outputNodes[o]].value->name) +
            "</td></tr>\n";
  if (hidden)
    html += "<tr class=\"tv-folded\"><td colspan=\"7\">" + std::to_string(hidden) +
            " nodes folded (outside the failing cone or further from the divergence)</td></tr>\n";
  return html + "</tbody></table>\n";
}

}  // namespace torchtv
