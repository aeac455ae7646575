#include "src/verify/input_domains.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "ir/op_registry.h"

namespace torchtv {

namespace {

// Conversions that keep an integer's value (Note [Input domains]).
bool convertsDType(std::string_view op) {
  return op == "aten::_to_copy" || op == "aten::to.dtype" || op == "aten::to.dtype_layout" ||
         op == "prims::convert_element_type";
}

// The size of the dim that `node`'s index operand points into, when known.
std::optional<int64_t> indexedDimSize(const Node &node, const IndexOperand &ix) {
  if (ix.into.empty()) {
    auto it = node.attrs.find(ix.boundAttr);
    if (it == node.attrs.end() || !it->second.isInt() || it->second.asInt() <= 0) return std::nullopt;
    return it->second.asInt();
  }
  std::vector<const ArgSpec *> args = node.schema->operandArgs(node.inputs.size());
  const Value *into = nullptr;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i]->name == ix.into) into = node.inputs[i];
  if (!into) return std::nullopt;
  auto rank = static_cast<int64_t>(into->type.shape.size());
  int64_t dim = ix.dim;
  if (ix.classDim) dim = rank >= 2 ? 1 : 0;
  if (!ix.dimAttr.empty()) {
    auto it = node.attrs.find(ix.dimAttr);
    if (it == node.attrs.end() || !it->second.isInt()) return std::nullopt;
    dim = it->second.asInt();
  }
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || !into->type.shape[dim].isConcrete()) return std::nullopt;
  return into->type.shape[dim].size();
}

}  // namespace

std::vector<InputDomain> inputDomains(const Graph &g) {
  // Each value's uses: (node, operand position).
  std::map<const Value *, std::vector<std::pair<const Node *, size_t>>> uses;
  for (const auto &n : g.nodes())
    for (size_t i = 0; i < n->inputs.size(); ++i)
      if (n->inputs[i]) uses[n->inputs[i]].emplace_back(n.get(), i);
  std::vector<InputDomain> domains;
  for (const Value *input : g.inputs()) {
    InputDomain d;
    std::vector<const Value *> todo = {input};
    while (!todo.empty()) {
      const Value *v = todo.back();
      todo.pop_back();
      for (auto [node, pos] : uses[v]) {
        OpProps props = opProps(node->op);
        if (pos == 0 && (props.elements != ElementMap::None || convertsDType(node->op))) {
          todo.insert(todo.end(), node->outputs.begin(), node->outputs.end());
          continue;
        }
        if (!node->schema) continue;
        std::vector<const ArgSpec *> args = node->schema->operandArgs(node->inputs.size());
        const std::string &arg = args.at(pos)->name;
        if (props.indexes && arg == props.indexes->index)
          if (auto size = indexedDimSize(*node, *props.indexes); size && *size > 0)
            d.indexBound = std::min(d.indexBound.value_or(*size), *size);
        if (!props.positiveArg.empty() && arg == props.positiveArg) d.positive = true;
      }
    }
    domains.push_back(d);
  }
  return domains;
}

bool anyDomain(const std::vector<InputDomain> &domains) {
  return std::any_of(domains.begin(), domains.end(),
                     [](const InputDomain &d) { return d.indexBound || d.positive; });
}

}  // namespace torchtv
