// Reader for the capture format written by src/capture (docs/capture-format.md).
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ir/builder.h"
#include "ir/graph.h"

namespace torchtv {

// One "torchtv-graph" object. Custom ops it uses are declared in `ops` from
// the graph's "schemas" table. `path` names the file in error messages.
std::unique_ptr<Graph> readCaptureGraph(const nlohmann::json &j, const std::string &path, OpResolver &ops);

// A whole capture: the "torchtv-capture" index in DIR/capture.json with the
// files it names, or the single object `--emit-stdout` prints. The module holds
// @reference, @production, and one graph per fusion named after its op.
// A shape-only pair's capture may also hold its graphs captured again at the
// shapes of small_inputs() (Note [Reduced-shape graphs] in
// src/capture/torchtv_capture/capture.py): the module names them so.
inline constexpr const char *kReducedReference = "reduced_reference";
inline constexpr const char *kReducedProduction = "reduced_production";
std::unique_ptr<Module> readCaptureDir(const std::string &dir);
std::unique_ptr<Module> readCaptureBundle(const nlohmann::json &bundle, const std::string &path);

// Parses JSON text; a syntax error becomes an InputError at its line and column.
nlohmann::json parseJsonText(const std::string &text, const std::string &path);

// A .json file: a single graph file ("torchtv-graph") or a capture index.
std::unique_ptr<Module> readCaptureJsonFile(const std::string &path);

}  // namespace torchtv
