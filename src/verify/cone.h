// Walking the cone of a value: every node it is computed from.
#pragma once

#include <unordered_set>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

// Calls f(node) once for each node in the cone of v (v's producer and, transitively, the
// producers of its inputs), in no particular order.
template <typename F>
void forEachNodeInCone(const Value *v, F f) {
  std::unordered_set<const Node *> seen;
  std::vector<const Value *> stack = {v};
  while (!stack.empty()) {
    const Value *x = stack.back();
    stack.pop_back();
    if (!x || !x->producer || !seen.insert(x->producer).second) continue;
    f(*x->producer);
    for (const Value *in : x->producer->inputs) stack.push_back(in);
  }
}

// The values in the cone of v: v itself, the values it is computed from, down to the graph's
// inputs and constants.
inline std::unordered_set<const Value *> coneValues(const Value *v) {
  std::unordered_set<const Value *> out;
  std::vector<const Value *> stack = {v};
  while (!stack.empty()) {
    const Value *x = stack.back();
    stack.pop_back();
    if (!x || !out.insert(x).second || !x->producer) continue;
    for (const Value *in : x->producer->inputs) stack.push_back(in);
  }
  return out;
}

}  // namespace torchtv
