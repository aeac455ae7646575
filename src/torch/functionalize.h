// In-place ops of a TorchScript graph made functional (Note [TorchScript in-place ops]).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace torch::jit {
struct Graph;
struct Node;
struct Value;
}  // namespace torch::jit

namespace torchtv::torch_impl {

struct Functionalized {
  size_t userOutputs = 0;  // the function's own outputs come first
  // Per modified graph input (by position in graph->inputs()): the graph
  // output, registered after the function's own, that holds its value after
  // the function ran.
  std::vector<std::pair<size_t, size_t>> inputUpdates;  // {input index, output index}
  // Each functional node put in place of an in-place one -> the value the
  // in-place op modified (its result must keep that value's dtype and shape).
  std::map<const torch::jit::Node *, const torch::jit::Value *> replaced;
  // Those of them that stand for an out= variant whose `out` tensor ATen may
  // resize to the result (a tensor of the function's own, not an input).
  std::set<const torch::jit::Node *> resized;
  // Each op left in place, and why it could not be rewritten.
  std::map<const torch::jit::Node *, std::string> left;
};

// Rewrites, in graph order, each in-place op whose modified tensor nothing
// else can see into its functional twin. Leaves in place what it cannot
// rewrite exactly; inPlaceOpLeft then names it. `graph` has no blocks.
Functionalized functionalize(torch::jit::Graph &graph);

// The first node that still modifies one of its operands, and why it was left so.
std::optional<std::pair<const torch::jit::Node *, std::string>> inPlaceOpLeft(torch::jit::Graph &graph,
                                                                            const Functionalized &f);

}  // namespace torchtv::torch_impl
