// Where two value-numbered graphs start to differ.
#pragma once

#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "src/match/value_numbering.h"

namespace torchtv {

// Nodes that `out` depends on, in topological order.
std::vector<const Node *> coneOf(const Graph &g, const Value *out);

// Numbers of every value that `g` computes (inputs included).
std::unordered_set<int> numbersOf(const Graph &g, const ValueNumbering &vn);

// The first node (in topological order) in the cone of `out` none of whose
// outputs has a counterpart among `other`; nullptr when every node matches.
const Node *firstUnmatchedNode(const Graph &g, const Value *out, const ValueNumbering &vn,
                               const std::unordered_set<int> &other);

}  // namespace torchtv
