// Repeated layers: the structural repeats of a graph, found from the graph
// itself (Note [Repeated layers]), for folding them in the HTML report.
#pragma once

#include <cstddef>
#include <vector>

#include "src/report/diff_view.h"

namespace torchtv {

// `count` consecutive copies of `period` keys, starting at `start`.
struct Repeat {
  size_t start = 0, period = 0, count = 0;
  size_t end() const { return start + period * count; }
};

// Maximal tandem repeats of `keys` (count >= 2, period >= minPeriod), not
// overlapping, ordered by start. One level: repeats nested inside a chosen
// one (the q/k/v projections inside a layer) are not reported.
std::vector<Repeat> tandemRepeats(const std::vector<int> &keys, size_t minPeriod);

// One repetition of a side's repeat: the view nodes it holds (consecutive
// indices into SideView::nodes), its number `index` (1-based) of `of`.
struct LayerGroup {
  int first = 0, size = 0;
  int index = 0, of = 0;
};

// The repetitions of a side's nodes, keyed by op and source line (op only
// where the line is unknown); graph inputs never belong to one.
std::vector<LayerGroup> layerGroups(const SideView &side, size_t minPeriod);

}  // namespace torchtv
