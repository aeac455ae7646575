// Reads graph files of every supported kind into the IR.
#pragma once

#include <memory>
#include <string>

#include "ir/graph.h"

namespace torchtv {

// Reads a file by its extension (.tvir today; each frontend adds its own).
// Throws InputError naming the file on any problem.
std::unique_ptr<Module> loadModule(const std::string &path);

// The graph playing `role` ("reference" or "production") in a module: the
// graph of that name, or the module's only graph.
const Graph &selectGraph(const Module &m, const std::string &role);

}  // namespace torchtv
