// Reads TorchScript files (torch.jit.script / torch.jit.trace, saved by torch
// 1.13 or 2.x) into the IR.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

// Loads `path` with LibTorch, freezes it (parameters kept), inlines calls and
// maps the forward graph to one IR graph named after the file. Parameters
// become the first graph inputs, named by their qualified names (fc1.weight),
// in the module's parameter order, as torch.export orders them; then come the
// forward arguments, typed by `inputs`. A tuple return becomes several outputs.
// Throws InputError naming the file (and the node and its source line) on
// anything it cannot map: control flow, ops missing from the registry,
// non-constant arguments, inputs that do not match `inputs`.
std::unique_ptr<Module> importTorchScript(const std::string &path, const std::vector<TensorType> &inputs);

}  // namespace torchtv
