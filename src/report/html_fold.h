// Repeated layers folded in the HTML report (Note [Folded layers]).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/report/diff_view.h"
#include "src/report/repeats.h"

namespace torchtv {

struct Folding {
  std::vector<LayerGroup> groups;
  std::vector<int> groupOf;     // per view node: its group, or -1
  std::vector<bool> collapsed;  // per group: drawn as one box
  bool folds(int node) const { return !groupOf.empty() && groupOf[node] >= 0 && collapsed[groupOf[node]]; }
};

// The smallest repetition that is folded: a layer, not an op applied twice.
constexpr size_t kMinLayerNodes = 8;
// An expanded group is drawn whole up to this many nodes (else only the part
// of it around the divergence is).
constexpr int kExpandWhole = 200;

// Groups `side` into its repeats; the groups holding a node of `keep` (the
// divergence, the first differing value) are expanded, the others collapsed.
// `visible` (the collapsed view) becomes: the expanded groups' nodes (whole,
// up to kExpandWhole), its other nodes outside any group; collapsed groups'
// nodes are drawn as their group's box.
Folding foldLayers(const SideView &side, const std::vector<int> &keep, std::vector<bool> &visible);

// Element id of a group's box (and of its header row in a table).
std::string groupId(const std::string &side, int group);
std::string groupLabel(const LayerGroup &g);  // "repeat 3 of 8"

// Each collapsed group's label, member ids and internal edges, for the page's
// script to draw it when clicked; members of groups past `nodeBudget` nodes
// in all are left out (`members` gets the groups that are in).
nlohmann::json groupsJson(const SideView &side, const std::string &sideName, const Folding &folding, size_t nodeBudget,
                          std::vector<bool> &members);

}  // namespace torchtv
