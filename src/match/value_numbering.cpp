#include "src/match/value_numbering.h"

#include <algorithm>

#include "ir/op_registry.h"

namespace torchtv {

bool isBitwiseCommutative(const Node &n) {
  switch (opProps(n.op).commutes) {
  case Commutes::No: return false;
  case Commutes::Always: return true;
  case Commutes::UnitAlpha: {
    const Attribute &alpha = n.attr("alpha");
    return alpha.isInt() && alpha.asInt() == 1;
  }
  }
  return false;
}

void ValueNumbering::bindInputs(const Graph &g) {
  for (size_t i = 0; i < g.inputs().size(); ++i) numbers_[g.inputs()[i]] = static_cast<int>(i);
  numInputs_ = std::max(numInputs_, g.inputs().size());
}

std::string operationKey(const Node &node, std::vector<int> operands) {
  if (isBitwiseCommutative(node)) std::sort(operands.begin(), operands.end());
  std::string key = node.op + "(";
  for (int o : operands) key += std::to_string(o) + ",";
  return key + "){" + attributesKey(node.attrs) + "}";
}

// Note [Views of merged values]: a view of a number that is a view of X is a view of X, and the
// identity where it has X's type.
static bool isPlainView(const Node &node) {
  return node.op == "aten::view" && node.inputs.size() == 1 && node.inputs[0] && node.outputs.size() == 1 &&
         node.attrs.size() == 1 && node.attrs.count("size");
}

std::optional<int> ValueNumbering::numberView(const Node &node, std::vector<int> &operands) {
  if (!isPlainView(node)) return std::nullopt;
  auto of = viewOf_.find(operands[0]);
  if (of == viewOf_.end()) return std::nullopt;
  if (of->second.type == node.outputs[0]->type) return of->second.number;
  operands[0] = of->second.number;
  return std::nullopt;
}

void ValueNumbering::numberNode(const Node &node) {
  std::vector<int> operands;
  for (const Value *v : node.inputs) operands.push_back(v ? numbers_.at(v) : -1);
  if (std::optional<int> same = numberView(node, operands)) {
    numbers_[node.outputs[0]] = *same;
    return;
  }
  std::string key = operationKey(node, std::move(operands));
  // Note [Random calls]: a call that draws random numbers equals no other call.
  if (isRandomCall(node.op, node.attrs)) key += "@random" + std::to_string(randomCalls_++);
  for (const Value *out : node.outputs) {
    std::string outKey = key + "#" + std::to_string(out->outputIndex) + ":" + out->type.str();
    auto [it, inserted] = table_.emplace(outKey, static_cast<int>(numInputs_ + table_.size()));
    numbers_[out] = it->second;
  }
  if (isPlainView(node)) {
    const Value *from = node.inputs[0];
    auto of = viewOf_.find(numbers_.at(from));
    viewOf_.emplace(numbers_.at(node.outputs[0]),
                    of != viewOf_.end() ? of->second : ViewOf{numbers_.at(from), from->type});
  }
}

void ValueNumbering::addGraph(const Graph &g) {
  bindInputs(g);
  for (const auto &node : g.nodes()) numberNode(*node);
}

}  // namespace torchtv
