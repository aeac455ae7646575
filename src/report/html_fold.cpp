#include "src/report/html_fold.h"

#include "src/report/html_graph.h"

namespace torchtv {

// Note [Folded layers]
// A model-size graph is mostly the same layer again and again. The collapsed
// view (Note [Collapsed view]) draws the neighbourhood of the divergence; on
// top of it, each repetition of a repeat (Note [Repeated layers]) is one box,
// "repeat k of N", with the edges between boxes (the residual stream, the
// saved activations a backward layer reads), so the drawing shows where in the
// model the divergence is. The repetitions holding the divergence or the first
// differing value are expanded: drawn node by node, by dot, as before. A click
// on a box expands it: dot cannot run in the page, so the page carries each
// box's members (their panel details, #tv-nodes) and internal edges
// (#tv-groups), and its script lays them out in ranks in place of the box. In
// the table fallback a box is a header row and its members' rows are hidden
// until it is clicked. Drawings stay bounded: a long run of collapsed
// repetitions keeps two boxes at each end and folds the rest into one range
// box ("repeats 3-60 of 64"), which a click opens into a column of repetition
// boxes. Pages stay bounded: past a node budget, further boxes carry no
// members and say so.

std::string groupId(const std::string &side, int group) { return side + "-g" + std::to_string(group); }

std::string groupLabel(const LayerGroup &g) {
  return "repeat " + std::to_string(g.index) + " of " + std::to_string(g.of);
}

std::string rangeId(const std::string &side, int range) { return side + "-r" + std::to_string(range); }

std::string rangeLabel(const Folding &f, const GroupRange &r) {
  return "repeats " + std::to_string(f.groups[r.first].index) + "-" + std::to_string(f.groups[r.last].index) + " of " +
         std::to_string(f.groups[r.first].of);
}

std::string Folding::boxOf(int node) const {
  int g = groupOf[node];
  return rangeOf[g] >= 0 ? "r" + std::to_string(rangeOf[g]) : "g" + std::to_string(g);
}

namespace {

// Long runs of collapsed repetitions of one repeat (kLongestRun).
void foldRuns(Folding &f) {
  f.rangeOf.assign(f.groups.size(), -1);
  for (size_t a = 0; a < f.groups.size();) {
    size_t b = a;
    while (f.collapsed[a] && b + 1 < f.groups.size() && f.collapsed[b + 1] && f.groups[b + 1].index == f.groups[b].index + 1)
      ++b;
    if (f.collapsed[a] && static_cast<int>(b - a + 1) > kLongestRun) {
      GroupRange r{static_cast<int>(a + 2), static_cast<int>(b - 2)};
      for (int g = r.first; g <= r.last; ++g) f.rangeOf[g] = static_cast<int>(f.ranges.size());
      f.ranges.push_back(r);
    }
    a = b + 1;
  }
}

}  // namespace

Folding foldLayers(const SideView &side, const std::vector<int> &keep, std::vector<bool> &visible) {
  Folding f;
  f.groups = layerGroups(side, kMinLayerNodes);
  if (f.groups.empty()) return f;
  f.groupOf.assign(side.nodes.size(), -1);
  for (size_t g = 0; g < f.groups.size(); ++g)
    for (int i = f.groups[g].first; i < f.groups[g].first + f.groups[g].size; ++i) f.groupOf[i] = static_cast<int>(g);
  f.collapsed.assign(f.groups.size(), true);
  for (int i : keep)
    if (i >= 0 && static_cast<size_t>(i) < side.nodes.size() && f.groupOf[i] >= 0) f.collapsed[f.groupOf[i]] = false;
  if (visible.empty()) visible.assign(side.nodes.size(), true);
  for (size_t i = 0; i < side.nodes.size(); ++i) {
    int g = f.groupOf[i];
    if (g < 0) continue;
    if (f.collapsed[g]) visible[i] = false;
    else if (f.groups[g].size <= kExpandWhole) visible[i] = true;
  }
  foldRuns(f);
  return f;
}

nlohmann::json groupsJson(const SideView &side, const std::string &sideName, const Folding &folding, size_t nodeBudget,
                          std::vector<bool> &members) {
  nlohmann::json out = nlohmann::json::object();
  members.assign(side.nodes.size(), false);
  size_t used = 0;
  // Boxes drawn by dot first, then those inside ranges.
  for (bool inRange : {false, true})
    for (size_t g = 0; g < folding.groups.size(); ++g) {
      if (!folding.collapsed[g] || (folding.rangeOf[g] >= 0) != inRange) continue;
      const LayerGroup &group = folding.groups[g];
      nlohmann::json entry = {{"label", groupLabel(group)}, {"size", group.size}};
      if (used + group.size <= nodeBudget) {
        used += group.size;
        nlohmann::json ids = nlohmann::json::array(), edges = nlohmann::json::array();
        for (int k = 0; k < group.size; ++k) {
          int i = group.first + k;
          members[i] = true;
          ids.push_back(viewNodeId(sideName, i));
          for (int o : side.nodes[i].operands)
            if (o >= group.first && o < i) edges.push_back({o - group.first, k});
        }
        entry["nodes"] = ids;
        entry["edges"] = edges;
      }  // else no members: the page says they are not in it
      out[groupId(sideName, static_cast<int>(g))] = entry;
    }
  for (size_t r = 0; r < folding.ranges.size(); ++r) {
    const GroupRange &range = folding.ranges[r];
    nlohmann::json ids = nlohmann::json::array();
    size_t size = 0;
    for (int g = range.first; g <= range.last; ++g) ids.push_back(groupId(sideName, g)), size += folding.groups[g].size;
    out[rangeId(sideName, static_cast<int>(r))] = {{"label", rangeLabel(folding, range)}, {"size", size}, {"groups", ids}};
  }
  return out;
}

}  // namespace torchtv
