// Inputs a graph modifies in place, paired between the two graphs of a check.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

// Note [Input mutations in graph files]
// A graph says that it modifies its input NAME in place by returning the
// updated value as an output NAME__updated (kUpdatedSuffix): the .pt2 reader
// makes these from torch.export's mutation outputs (Note [pt2 input
// mutations]), a .tvir or capture graph may spell them itself. An output
// NAME__updated that is the input NAME itself is no modification.
//
// A modification on one side only is behaviour the other side lacks, so it
// must be decided, not dropped: pairInputMutations gives the graph that does
// not modify input i (inputs pair by position) the output NAME__updated = its
// input i unchanged, and puts every graph's updates after its other outputs in
// input order, so that the two graphs' outputs pair up by position. The
// returned lists say which side modifies which input (by the reference's input
// names), for the reason a differing update gets ("production modifies its
// input %x in place", src/verify/cross_check.h).
struct InputMutations {
  std::vector<std::string> reference, production;
  bool any() const { return !reference.empty() || !production.empty(); }
};
InputMutations pairInputMutations(Graph &ref, Graph &prod);

}  // namespace torchtv
