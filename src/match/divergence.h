// Where two value-numbered graphs start to differ.
#pragma once

#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "src/match/value_numbering.h"

namespace torchtv {

// Numbers of every value that `g` computes (inputs included).
std::unordered_set<int> numbersOf(const Graph &g, const ValueNumbering &vn);

// For each output of `g` (in order): the first node (in topological order) in
// its cone none of whose outputs has a counterpart among `other`; nullptr when
// every node matches. One pass over the graph for all outputs (a cone walk per
// output was quadratic in depth: every output of a deep model reaches most nodes).
std::vector<const Node *> firstUnmatchedNodes(const Graph &g, const ValueNumbering &vn,
                                              const std::unordered_set<int> &other);

}  // namespace torchtv
