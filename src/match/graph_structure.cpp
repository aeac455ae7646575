// Note [Graph structure]: the only translation unit that includes Boost.Graph.
#include "src/match/graph_structure.h"

#include <algorithm>
#include <unordered_map>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/dominator_tree.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/property_map/property_map.hpp>

namespace torchtv {

namespace {

using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
using Vertex = boost::graph_traits<BoostGraph>::vertex_descriptor;

// Thrown by the visitor to end a search at its bound (Boost's way of stopping a
// traversal early).
struct LimitReached {};

template <class Graph>
struct ExpandOnly {
  const std::vector<Vertex> *starts = nullptr;  // a few: a linear scan beats a set
  const std::vector<const Value *> *values = nullptr;
  const std::function<bool(const Value *)> *expand = nullptr;
  const Graph *g = nullptr;
  template <class Edge>
  bool operator()(const Edge &e) const {
    Vertex u = boost::source(e, *g);
    if (!(*values)[u]) return false;  // never on from the sink
    return std::find(starts->begin(), starts->end(), u) != starts->end() || (*expand)((*values)[u]);
  }
};

// Visits each value as it is discovered, and stops the search at its bound.
struct Discover : boost::default_bfs_visitor {
  size_t *seen;
  size_t limit;
  const std::vector<const Value *> *values;
  const std::function<void(const Value *)> *visit;
  Discover(size_t *seen, size_t limit, const std::vector<const Value *> *values,
           const std::function<void(const Value *)> *visit)
      : seen(seen), limit(limit), values(values), visit(visit) {}
  template <class G>
  void discover_vertex(Vertex x, const G &) const {
    if (++*seen > limit) throw LimitReached{};
    if ((*values)[x]) (*visit)((*values)[x]);
  }
};

}  // namespace

struct GraphStructure::Impl {
  BoostGraph graph;
  std::vector<const Value *> values;  // by vertex; the sink's is nullptr
  std::unordered_map<const Value *, Vertex> vertexOf;
  std::vector<Vertex> postDominator;  // by vertex: immediate post-dominator, or null_vertex()
  Vertex sink = 0;

  Vertex add(const Value *v) {
    Vertex x = boost::add_vertex(graph);
    values.push_back(v);
    vertexOf.emplace(v, x);
    return x;
  }

  template <class G>
  bool search(const G &g, const std::vector<const Value *> &starts, const std::function<bool(const Value *)> &expand,
              size_t limit, const std::function<void(const Value *)> &visit) const {
    // Colours of the values seen, in a map: one search reaches a few hundred
    // values of tens of thousands, and a colour per vertex would cost every
    // search the whole graph.
    // (A flag per vertex for the starts cost every search the whole graph too.)
    std::unordered_map<Vertex, boost::default_color_type> colours;
    boost::associative_property_map<decltype(colours)> colour(colours);
    std::vector<Vertex> sources;
    for (const Value *v : starts) {
      auto it = vertexOf.find(v);
      if (it == vertexOf.end() || std::find(sources.begin(), sources.end(), it->second) != sources.end()) continue;
      sources.push_back(it->second);
    }
    ExpandOnly<G> keep{&sources, &values, &expand, &g};
    boost::filtered_graph<G, ExpandOnly<G>> filtered(g, keep);
    size_t seen = 0;
    Discover onDiscover{&seen, limit, &values, &visit};
    boost::queue<Vertex> queue;
    try {
      boost::breadth_first_visit(filtered, sources.begin(), sources.end(), queue, onDiscover, colour);
    } catch (const LimitReached &) {
      return false;
    }
    return true;
  }
};

GraphStructure::GraphStructure(const Graph &g) : impl_(std::make_unique<Impl>()) {
  Impl &s = *impl_;
  for (const Value *v : g.inputs()) s.add(v);
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs) s.add(v);
  s.sink = boost::add_vertex(s.graph);
  s.values.push_back(nullptr);
  for (const auto &n : g.nodes())
    for (const Value *operand : n->inputs) {
      if (!operand) continue;
      auto from = s.vertexOf.find(operand);
      if (from == s.vertexOf.end()) continue;
      for (const Value *v : n->outputs) boost::add_edge(from->second, s.vertexOf.at(v), s.graph);
    }
  for (const Value *v : g.outputs()) {
    auto it = s.vertexOf.find(v);
    if (it != s.vertexOf.end()) boost::add_edge(it->second, s.sink, s.graph);
  }
  // Post-dominators are the dominators of the reversed graph, entered at the sink.
  auto reversed = boost::make_reverse_graph(s.graph);
  s.postDominator.assign(boost::num_vertices(s.graph), boost::graph_traits<BoostGraph>::null_vertex());
  auto index = boost::get(boost::vertex_index, reversed);
  auto pred = boost::make_iterator_property_map(s.postDominator.begin(), index);
  boost::lengauer_tarjan_dominator_tree(reversed, s.sink, pred);
}

GraphStructure::~GraphStructure() = default;

const Value *GraphStructure::postDominator(const Value *v) const {
  auto it = impl_->vertexOf.find(v);
  if (it == impl_->vertexOf.end()) return nullptr;
  Vertex d = impl_->postDominator[it->second];
  if (d == boost::graph_traits<BoostGraph>::null_vertex()) return nullptr;
  return impl_->values[d];  // nullptr for the sink
}

bool GraphStructure::reach(const std::vector<const Value *> &starts, Direction direction,
                           const std::function<bool(const Value *)> &expand, size_t limit,
                           const std::function<void(const Value *)> &visit) const {
  if (direction == Direction::Users) return impl_->search(impl_->graph, starts, expand, limit, visit);
  return impl_->search(boost::make_reverse_graph(impl_->graph), starts, expand, limit, visit);
}

}  // namespace torchtv
