#include "src/match/value_numbering.h"

#include <algorithm>

namespace torchtv {

bool isBitwiseCommutative(const Node &n) {
  if (n.op == "aten::add.Tensor") {
    const Attribute &alpha = n.attr("alpha");
    return alpha.isInt() && alpha.asInt() == 1;
  }
  return n.op == "aten::mul.Tensor" || n.op == "aten::eq.Tensor" || n.op == "aten::ne.Tensor" ||
         n.op == "aten::logical_and" || n.op == "aten::logical_or" || n.op == "aten::logical_xor";
}

bool producesUnspecifiedValues(const Node &n) {
  static const char *const kOps[] = {
      "aten::empty.memory_format", "aten::empty_like", "aten::new_empty", "aten::empty_strided",
      "aten::new_empty_strided", "aten::rand", "aten::rand_like", "aten::randn", "aten::randn_like",
      "aten::randint", "aten::randint_like", "aten::bernoulli", "aten::bernoulli.p", "aten::normal.Tensor_float",
      "aten::uniform", "aten::multinomial", "aten::randperm", "prims::empty_strided"};
  for (const char *op : kOps)
    if (n.op == op) return true;
  if (n.op == "aten::native_dropout" || n.op == "aten::dropout") {
    auto train = n.attrs.find("train"), p = n.attrs.find("p");
    bool identity = (train != n.attrs.end() && train->second.isBool() && !train->second.asBool()) ||
                    (p != n.attrs.end() && p->second.isScalar() && p->second.asDouble() == 0.0);
    return !identity;
  }
  return false;
}

void ValueNumbering::bindInputs(const Graph &g) {
  for (size_t i = 0; i < g.inputs().size(); ++i) numbers_[g.inputs()[i]] = static_cast<int>(i);
  numInputs_ = std::max(numInputs_, g.inputs().size());
}

void ValueNumbering::numberNode(const Node &node) {
  std::vector<int> operands;
  for (const Value *v : node.inputs) operands.push_back(v ? numbers_.at(v) : -1);
  if (isBitwiseCommutative(node)) std::sort(operands.begin(), operands.end());

  std::string key = node.op + "(";
  for (int o : operands) key += std::to_string(o) + ",";
  key += "){";
  for (const auto &[name, attr] : node.attrs) key += name + "=" + attr.str() + ";";
  key += "}";
  if (producesUnspecifiedValues(node)) key += "@" + std::to_string(table_.size());  // never equal
  for (const Value *out : node.outputs) {
    std::string outKey = key + "#" + std::to_string(out->outputIndex) + ":" + out->type.str();
    auto [it, inserted] = table_.emplace(outKey, static_cast<int>(numInputs_ + table_.size()));
    numbers_[out] = it->second;
  }
}

void ValueNumbering::addGraph(const Graph &g) {
  bindInputs(g);
  for (const auto &node : g.nodes()) numberNode(*node);
}

}  // namespace torchtv
