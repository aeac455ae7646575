// Repeated layers folded in the HTML report (Note [Folded layers]).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/report/diff_view.h"
#include "src/report/repeats.h"

namespace torchtv {

// Consecutive collapsed repetitions of one repeat drawn as one box.
struct GroupRange {
  int first = 0, last = 0;  // groups, inclusive
};

struct Folding {
  std::vector<LayerGroup> groups;
  std::vector<int> groupOf;     // per view node: its group, or -1
  std::vector<bool> collapsed;  // per group: drawn as one box
  std::vector<int> rangeOf;     // per group: its range, or -1
  std::vector<GroupRange> ranges;
  bool folds(int node) const { return !groupOf.empty() && groupOf[node] >= 0 && collapsed[groupOf[node]]; }
  // The DOT name of the box that stands for folded node `node`: "g3" or "r0".
  std::string boxOf(int node) const;
};

// The smallest repetition that is folded: a layer, not an op applied twice.
constexpr size_t kMinLayerNodes = 8;
// An expanded group is drawn whole up to this many nodes (else only the part
// of it around the divergence is).
constexpr int kExpandWhole = 200;
// A run of more collapsed repetitions than this keeps two boxes at each end
// and folds the middle into one range box, so that dot's drawing stays the
// size it is at a few layers (at 64 layers, 250 boxes took dot past 30 s).
constexpr int kLongestRun = 5;

// Groups `side` into its repeats; the groups holding a node of `keep` (the
// divergence, the first differing value) are expanded, the others collapsed.
// `visible` (the collapsed view) becomes: the expanded groups' nodes (whole,
// up to kExpandWhole), its other nodes outside any group; collapsed groups'
// nodes are drawn as their group's box.
Folding foldLayers(const SideView &side, const std::vector<int> &keep, std::vector<bool> &visible);

// Element id of a group's box (and of its header row in a table).
std::string groupId(const std::string &side, int group);
std::string groupLabel(const LayerGroup &g);  // "repeat 3 of 8"
std::string rangeId(const std::string &side, int range);
std::string rangeLabel(const Folding &f, const GroupRange &r);  // "repeats 3-60 of 64"

// Each collapsed group's label, member ids and internal edges, for the page's
// script to draw it when clicked, and each range's groups; members of groups
// past `nodeBudget` nodes in all are left out, those drawn as boxes first
// (`members` gets the nodes that are in).
nlohmann::json groupsJson(const SideView &side, const std::string &sideName, const Folding &folding, size_t nodeBudget,
                          std::vector<bool> &members);

}  // namespace torchtv
