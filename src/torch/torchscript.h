// Reads TorchScript files (torch.jit.script / torch.jit.trace, saved by torch
// 1.13 or 2.x) into the IR.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

// Note [Custom ops in TorchScript files]
// A scripted module that calls a custom op (`torch.ops.tvx.rmsnorm`, defined
// with torch.library) cannot even be loaded unless LibTorch knows the op: the
// file holds code, which LibTorch compiles against its registered schemas.
// The `op` declarations of --fusions DIR give those schemas. Before loading,
// each is registered with LibTorch's dispatcher (schema only, no kernel: the
// op's code never runs; a replay of a graph calling it is refused, Note
// [Replaying counterexamples]), and its calls are read like any op. Their
// result types come from the op's definition in the same folder, built for
// the call's operands (a TorchScript graph records no types, and there is no
// kernel to run on meta tensors); normalization then expands each call
// through that definition, as for a .pt2 or a pair file's FUSIONS. An op the
// folder declares but does not define, or whose definitions do not take the
// call's operands, is an error naming it.
struct CustomOps {
  std::vector<std::shared_ptr<const OpSchema>> schemas;
  // The result types of one call (InputError saying why when unknown).
  std::function<std::vector<TensorType>(const std::string &op, const std::vector<const TensorType *> &operands,
                                        const AttributeMap &attrs)>
      resultTypes;
};

// Loads `path` with LibTorch, freezes it (parameters kept), inlines calls and
// maps the forward graph to one IR graph named after the file. Parameters
// become the first graph inputs, named by their qualified names (fc1.weight),
// in the module's parameter order, as torch.export orders them; then come the
// forward arguments, typed by `inputs`. A tuple return becomes several outputs.
// Throws InputError naming the file (and the node and its source line) on
// anything it cannot map: control flow, ops missing from the registry,
// non-constant arguments, inputs that do not match `inputs`. `custom`, when
// given, declares the custom ops the file may call (Note [Custom ops in
// TorchScript files]).
std::unique_ptr<Module> importTorchScript(const std::string &path, const std::vector<TensorType> &inputs,
                                          const CustomOps *custom = nullptr);

}  // namespace torchtv
