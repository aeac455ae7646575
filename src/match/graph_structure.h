// The dataflow structure of one IR graph as Boost.Graph sees it: post-dominators
// and bounded reachability, for the cut search (Note [Cut candidates from structure]
// in src/verify/cut_points.cpp).
//
// Note [Graph structure]
// A thin adapter: one vertex per value (the graph's inputs and every node's
// outputs), an edge from each operand to each output of the node reading it,
// plus one virtual sink that every graph output feeds. Boost.Graph
// (libboost-graph-dev) runs the algorithms on it:
// - the post-dominator tree (Lengauer-Tarjan on the reversed graph, rooted at
//   the sink): q post-dominates v when every path from v to an output passes
//   through q. A value whose nearest post-dominator is another value is
//   interior to one expression (its effect on the outputs goes through that
//   value only); a value post-dominated by the sink alone reaches the outputs
//   along paths that meet only there: the residual stream between layers, a
//   gradient read by a weight's gradient and by the layer below.
// - breadth-first reachability forwards (users) or backwards (operands) from a
//   set of values, expanding only through the values a predicate allows and
//   stopping after a bounded number of values.
// Boost.Graph's headers are included by graph_structure.cpp only (they are
// slow to compile); this header exposes the IR's own types.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

class GraphStructure {
public:
  explicit GraphStructure(const Graph &g);
  ~GraphStructure();
  GraphStructure(const GraphStructure &) = delete;
  GraphStructure &operator=(const GraphStructure &) = delete;

  // The nearest value other than v that every path from v to an output passes
  // through; nullptr when only the virtual sink does (v is an output, or its
  // paths to the outputs meet nowhere before them) or v reaches no output.
  const Value *postDominator(const Value *v) const;

  enum class Direction { Users, Operands };
  // Breadth first from `starts` (each visited too) along `direction`, going on
  // from a value only when expand(value) holds; visit(value) is called once per
  // value reached, in breadth-first order. Stops after `limit` values and then
  // returns false (true when everything reachable was visited).
  bool reach(const std::vector<const Value *> &starts, Direction direction,
             const std::function<bool(const Value *)> &expand, size_t limit,
             const std::function<void(const Value *)> &visit) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace torchtv
