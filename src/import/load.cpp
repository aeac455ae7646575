#include "src/import/load.h"

#include <filesystem>

#include "ir/diagnostic.h"
#include "ir/limits.h"
#include "ir/text_format.h"
#include "src/import/capture_json.h"
#include "src/import/pt2.h"
#include "src/torch/torchscript.h"

namespace torchtv {

std::unique_ptr<Module> loadModule(const std::string &path, const LoadOptions &options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(SourcePos{path}, "no such file");
  if (fs::is_directory(path, ec)) {
    if (fs::exists(fs::path(path) / "capture.json", ec)) return readCaptureDir(path);
    throw InputError(SourcePos{path}, "is a directory without capture.json, expected a graph file");
  }
  // Note [Input limits]: .pt and .pt2 are read by libraries that map or
  // allocate by the file's size; refuse a huge file before they see it.
  if (!fs::is_regular_file(path, ec))
    throw InputError(SourcePos{path}, "not a regular file (a FIFO, socket or device); expected a graph file");
  checkFileSize(fs::file_size(path, ec), SourcePos{path});
  std::string ext = fs::path(path).extension().string();
  if (ext == ".tvir") {
    if (options.inputs)
      throw InputError(SourcePos{path}, "--inputs applies to .pt and .pt2 files; a .tvir file declares its types");
    return std::make_unique<Module>(parseModuleFile(path));
  }
  if (ext == ".pt") {
    if (!options.inputs)
      throw InputError(SourcePos{path},
                       "a TorchScript file has no shapes: give the types of its inputs with --inputs, "
                       "e.g. --inputs 'f32[3,5],f32[5]'");
    return importTorchScript(path, *options.inputs, options.customOps);
  }
  if (ext == ".pt2") return importPt2(path, options.inputs ? &*options.inputs : nullptr);
  if (ext == ".json") return readCaptureJsonFile(path);
  if (ext == ".py")
    throw InputError(SourcePos{path}, "is a Python pair file: check reads graph files; capture and decide it with "
                                      "torchtv verify " + path);
  throw InputError(SourcePos{path}, "unsupported file type '" + ext +
                                        "' (expected .tvir, .pt, .pt2, .json or a capture directory)");
}

std::vector<TensorType> parseInputTypes(const std::string &text) {
  std::vector<TensorType> types;
  std::string current;
  int depth = 0;
  auto flush = [&] {
    size_t b = current.find_first_not_of(" \t"), e = current.find_last_not_of(" \t");
    if (b == std::string::npos) throw InputError("--inputs: empty type in '" + text + "'");
    std::string one = current.substr(b, e - b + 1);
    try {
      types.push_back(parseTensorType(one));
    } catch (const InputError &err) {
      throw InputError("--inputs: bad type '" + one + "': " + err.message());
    }
    current.clear();
  };
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) throw InputError("--inputs: unbalanced ']' in '" + text + "'");
    if (c == ',' && depth == 0) flush();
    else current += c;
  }
  if (depth != 0) throw InputError("--inputs: unbalanced '[' in '" + text + "'");
  flush();
  return types;
}

const Graph &selectGraph(const Module &m, const std::string &role) {
  if (const Graph *g = m.find(role)) return *g;
  if (m.graphs.size() == 1) return *m.graphs.front();
  std::string names;
  for (const auto &g : m.graphs) names += (names.empty() ? "@" : ", @") + g->name();
  throw InputError(SourcePos{m.path}, "no graph @" + role + " in a file with several graphs (" + names + ")");
}

Graph &selectGraph(Module &m, const std::string &role) {
  return const_cast<Graph &>(selectGraph(static_cast<const Module &>(m), role));
}

}  // namespace torchtv
