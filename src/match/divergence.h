// Where two value-numbered graphs start to differ.
#pragma once

#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "src/match/value_numbering.h"

namespace torchtv {

// Numbers of every value that `g` computes (inputs included).
std::unordered_set<int> numbersOf(const Graph &g, const ValueNumbering &vn);

// Note [Divergence through unmatched values]
// Where an output starts to differ is an unmatched node (none of its results
// has a counterpart) from which the output is reached through unmatched nodes
// only. A node whose every path to the output crosses a matched (proven-equal)
// node is an equal formula's own detail: production's ReLU mask `u > 0`
// against autograd's complementary `u <= 0`, both used in a product that a cut
// point proves equal. Naming such a node sent readers to correct code (issue
// 36: every output of a train step with a wrong attention scale "diverged" at
// the last layer's ReLU backward).
//
// For each output of `g` (in order): the first node (in topological order) of
// that kind; nullptr when none is (the output itself matches). One pass over
// the graph for all outputs (a cone walk per output was quadratic in depth:
// every output of a deep model reaches most nodes).
std::vector<const Node *> firstUnmatchedNodes(const Graph &g, const ValueNumbering &vn,
                                              const std::unordered_set<int> &other);

}  // namespace torchtv
