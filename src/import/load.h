// Reads graph files of every supported kind into the IR.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

struct CustomOps;  // src/torch/torchscript.h

struct LoadOptions {
  // Types of the user inputs (--inputs). Required for TorchScript (.pt), whose
  // files carry no shapes; for .pt2, when given, checked against the file.
  std::optional<std::vector<TensorType>> inputs;
  // Custom ops a TorchScript file may call (src/torch/torchscript.h).
  const CustomOps *customOps = nullptr;
};

// Reads a file by its extension: .tvir, .pt (TorchScript), .pt2 (torch.export).
// Throws InputError naming the file on any problem.
std::unique_ptr<Module> loadModule(const std::string &path, const LoadOptions &options = {});

// Parses the --inputs syntax: types separated by commas, e.g.
// "f32[3,5],f32[5]" (commas inside brackets belong to the shape).
std::vector<TensorType> parseInputTypes(const std::string &text);

// The graph playing `role` ("reference" or "production") in a module: the
// graph of that name, or the module's only graph.
const Graph &selectGraph(const Module &m, const std::string &role);
Graph &selectGraph(Module &m, const std::string &role);

}  // namespace torchtv
