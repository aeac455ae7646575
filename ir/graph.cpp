#include "ir/graph.h"

#include "ir/limits.h"

#include <stdexcept>
#include <unordered_set>

namespace torchtv {

const Attribute &Node::attr(const std::string &name) const {
  auto it = attrs.find(name);
  if (it == attrs.end()) throw std::logic_error("node " + op + " has no attribute '" + name + "'");
  return it->second;
}

Value *Graph::newValue(const std::string &name, TensorType type) {
  auto v = std::make_unique<Value>();
  v->name = name;
  v->type = std::move(type);
  v->id = static_cast<int>(values_.size());
  names_.insert(name);
  values_.push_back(std::move(v));
  return values_.back().get();
}

// Note [Fresh names]: the smallest unused suffix, found without retrying the taken ones.
std::string Graph::freshName(const std::string &hint) {
  std::string base = hint.empty() ? "v" : hint;
  if (!names_.count(base)) return base;
  int &next = nextSuffix_.try_emplace(base, 1).first->second;
  for (;; ++next) {
    std::string candidate = base + "_" + std::to_string(next);
    if (!names_.count(candidate)) return candidate;
  }
}

Value *Graph::addInput(const std::string &name, TensorType type) {
  // Note [Input limits]: the .tvir parser checks with a position; this catches the other readers.
  checkTensorLimits(type, SourcePos{});
  Value *v = newValue(name, std::move(type));
  inputs_.push_back(v);
  return v;
}

Node *Graph::addNode(std::string op, std::shared_ptr<const OpSchema> schema,
                     std::vector<Value *> inputs, AttributeMap attrs,
                     const std::vector<std::pair<std::string, TensorType>> &outputs,
                     SourceLoc loc) {
  auto node = std::make_unique<Node>();
  node->op = std::move(op);
  node->schema = std::move(schema);
  node->inputs = std::move(inputs);
  node->attrs = std::move(attrs);
  node->loc = std::move(loc);
  for (size_t i = 0; i < outputs.size(); ++i) {
    Value *v = newValue(outputs[i].first, outputs[i].second);
    v->producer = node.get();
    v->outputIndex = static_cast<int>(i);
    node->outputs.push_back(v);
  }
  nodes_.push_back(std::move(node));
  return nodes_.back().get();
}

void Graph::addOutput(Value *v, std::string name) {
  outputs_.push_back(v);
  outputNames_.push_back(name.empty() ? v->name : std::move(name));
}

void Graph::setOutputs(std::vector<Value *> values, std::vector<std::string> names) {
  if (values.size() != names.size()) throw std::logic_error("setOutputs: values and names differ in length");
  outputs_ = std::move(values);
  outputNames_ = std::move(names);
}

Graph *Module::find(const std::string &name) const {
  for (const auto &g : graphs)
    if (g->name() == name) return g.get();
  return nullptr;
}

std::unordered_set<const Node *> liveNodes(const Graph &g) {
  return liveNodes(g, std::vector<bool>(g.outputs().size(), true));
}

std::unordered_set<const Node *> liveNodes(const Graph &g, const std::vector<bool> &outputs) {
  std::unordered_set<const Value *> needed;
  for (size_t i = 0; i < g.outputs().size() && i < outputs.size(); ++i)
    if (outputs[i]) needed.insert(g.outputs()[i]);
  std::unordered_set<const Node *> live;
  for (auto it = g.nodes().rbegin(); it != g.nodes().rend(); ++it) {
    const Node *n = it->get();
    bool used = false;
    for (const Value *v : n->outputs) used = used || needed.count(v);
    if (!used) continue;
    live.insert(n);
    for (const Value *in : n->inputs)
      if (in) needed.insert(in);
  }
  return live;
}

}  // namespace torchtv
