#include "ir/rewrite.h"

#include <stdexcept>
#include <unordered_set>

#include "ir/op_registry.h"

namespace torchtv {

void replaceAllUsesWith(Graph &g, Value *from, Value *to) {
  for (const auto &n : g.nodes())
    for (Value *&in : n->inputs)
      if (in == from) in = to;
  for (size_t i = 0; i < g.outputs().size(); ++i)
    if (g.outputs()[i] == from) g.setOutput(i, to);
}

void sortTopologically(Graph &g) {
  auto nodes = g.takeNodes();
  std::unordered_map<const Node *, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i].get()] = i;
  std::vector<std::unique_ptr<Node>> order;
  std::vector<int> state(nodes.size(), 0);  // 0 new, 1 on stack, 2 placed
  // Depth-first from each node in the current order: operands first.
  for (size_t root = 0; root < nodes.size(); ++root) {
    if (state[root]) continue;
    std::vector<std::pair<size_t, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto &[i, next] = stack.back();
      Node *n = nodes[i].get();
      if (next < n->inputs.size()) {
        Value *in = n->inputs[next++];
        if (!in || !in->producer) continue;
        auto it = index.find(in->producer);
        if (it == index.end()) continue;  // produced by a removed node: caller's bug, keep going
        if (state[it->second] == 1) throw std::logic_error("graph @" + g.name() + " has a cycle");
        if (state[it->second] == 0) {
          state[it->second] = 1;
          stack.emplace_back(it->second, 0);
        }
        continue;
      }
      state[i] = 2;
      order.push_back(std::move(nodes[i]));
      stack.pop_back();
    }
  }
  g.setNodes(std::move(order));
}

std::unique_ptr<Graph> cloneGraph(const Graph &g, std::unordered_map<const Value *, Value *> *mapOut) {
  auto copy = std::make_unique<Graph>(g.name());
  std::unordered_map<const Value *, Value *> map;
  for (const Value *v : g.inputs()) map[v] = copy->addInput(v->name, v->type);
  for (const auto &n : g.nodes()) {
    std::vector<Value *> ins;
    for (const Value *v : n->inputs) ins.push_back(v ? map.at(v) : nullptr);
    std::vector<std::pair<std::string, TensorType>> outs;
    for (const Value *v : n->outputs) outs.emplace_back(v->name, v->type);
    // A copy of nodes that were checked when first built: no need to re-infer.
    Node *c = copy->addNode(n->op, n->schema, std::move(ins), n->attrs, outs, n->loc);
    for (size_t i = 0; i < n->outputs.size(); ++i) map[n->outputs[i]] = c->outputs[i];
  }
  for (size_t i = 0; i < g.outputs().size(); ++i) copy->addOutput(map.at(g.outputs()[i]), g.outputNames()[i]);
  if (mapOut) *mapOut = std::move(map);
  return copy;
}

OpResolver resolverFor(const Graph &g) {
  OpResolver r;
  for (const auto &n : g.nodes())
    if (!lookupOp(n->op)) r.declare(n->schema);
  return r;
}

}  // namespace torchtv
