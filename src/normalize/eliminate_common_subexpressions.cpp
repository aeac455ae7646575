#include <algorithm>
#include <unordered_map>

#include "ir/op_registry.h"
#include "src/match/value_numbering.h"
#include "src/normalize/passes.h"

namespace torchtv {

// Two nodes with the same op, attributes and operands compute the same values
// unless the op is random (Note [Random calls]). Operands of
// bitwise-commutative ops are compared as a set (Note [Commutative ops]).
bool eliminateCommonSubexpressions(Rewriter &rw) {
  std::unordered_map<std::string, Node *> seen;
  bool changed = false;
  for (Node *n : rw.snapshot()) {
    if (isRandomCall(n->op, n->attrs)) continue;
    std::vector<int> operands;
    for (const Value *v : n->inputs) operands.push_back(v ? v->id : -1);
    std::string key = operationKey(*n, std::move(operands));
    for (const Value *v : n->outputs) key += v->type.str() + ";";
    auto [it, inserted] = seen.emplace(key, n);
    if (inserted) continue;
    for (size_t i = 0; i < n->outputs.size(); ++i) rw.replace(n->outputs[i], it->second->outputs[i]);
    changed = true;
  }
  return changed;
}

}  // namespace torchtv
