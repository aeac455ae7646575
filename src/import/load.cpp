#include "src/import/load.h"

#include <filesystem>

#include "ir/diagnostic.h"
#include "ir/text_format.h"
#include "src/import/capture_json.h"

namespace torchtv {

std::unique_ptr<Module> loadModule(const std::string &path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(SourcePos{path}, "no such file");
  if (fs::is_directory(path, ec)) {
    if (fs::exists(fs::path(path) / "capture.json", ec)) return readCaptureDir(path);
    throw InputError(SourcePos{path}, "is a directory without capture.json, expected a graph file");
  }
  std::string ext = fs::path(path).extension().string();
  if (ext == ".tvir") return std::make_unique<Module>(parseModuleFile(path));
  if (ext == ".json") return readCaptureJsonFile(path);
  throw InputError(SourcePos{path}, "unsupported file type '" + ext + "' (expected .tvir, .json or a capture directory)");
}

const Graph &selectGraph(const Module &m, const std::string &role) {
  if (const Graph *g = m.find(role)) return *g;
  if (m.graphs.size() == 1) return *m.graphs.front();
  std::string names;
  for (const auto &g : m.graphs) names += (names.empty() ? "@" : ", @") + g->name();
  throw InputError(SourcePos{m.path}, "no graph @" + role + " in a file with several graphs (" + names + ")");
}

}  // namespace torchtv
