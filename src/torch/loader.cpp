// The loader: finds the LibTorch module, loads it on first use, and implements the
// interfaces of replay.h and torchscript.h through it (Note [LibTorch module]).
// Includes no torch header.
#include "src/torch/torch_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "ir/diagnostic.h"
#include "src/torch/replay.h"
#include "src/torch/torchscript.h"
#include "src/util/install_layout.h"

namespace torchtv {

namespace {

// Note [LibTorch module]: where the module is looked for: $TORCHTV_TORCH_MODULE,
// else the folders of Note [Installed layout].
std::vector<std::string> candidates() {
  if (const char *env = std::getenv("TORCHTV_TORCH_MODULE"); env && *env) return {env};
  std::vector<std::string> paths;
  for (const std::string &dir : installLayout().torchModuleDirs) paths.push_back(dir + "/" + kTorchModuleFile);
  return paths;
}

struct Loaded {
  const TorchModuleApi *api = nullptr;
  std::string error;
};

Loaded load() {
  std::string tried;
  for (const std::string &path : candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      tried += (tried.empty() ? "" : "; ") + path + ": no such file";
      continue;
    }
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) return {nullptr, "cannot load " + path + ": " + dlerror()};
    using Entry = const TorchModuleApi *(*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, kTorchModuleEntry));
    if (!entry) return {nullptr, path + " has no entry point " + kTorchModuleEntry};
    const TorchModuleApi *api = entry();
    if (!api || api->abi != kTorchModuleAbi)
      return {nullptr, path + " was built for another torchtv (interface version " +
                           std::to_string(api ? api->abi : 0) + ", expected " + std::to_string(kTorchModuleAbi) +
                           "): rebuild it"};
    return {api, ""};
  }
  return {nullptr, "the LibTorch module " + std::string(kTorchModuleFile) + " was not found (" + tried + ")"};
}

}  // namespace

namespace {
std::atomic<bool> moduleLoaded{false};
}  // namespace

const TorchModuleApi &torchModule() {
  static std::once_flag once;
  static Loaded loaded;
  std::call_once(once, [] {
    loaded = load();
    moduleLoaded = loaded.api != nullptr;
  });
  if (!loaded.api) throw TorchModuleUnavailable(loaded.error);
  return *loaded.api;
}

bool torchModuleLoaded() { return moduleLoaded; }

// ---- replay.h and torchscript.h, through the module -------------------------------------------

bool canReplay(const OpSchema &schema) {
  try {
    return torchModule().canReplay(schema);
  } catch (const TorchModuleUnavailable &) {
    return false;
  }
}

namespace {
const TorchModuleApi &replayModule() {
  try {
    return torchModule();
  } catch (const TorchModuleUnavailable &e) {
    throw ReplayUnavailable(std::string("LibTorch replay is unavailable: ") + e.what());
  }
}
}  // namespace

std::vector<ConcreteTensor> replayGraph(const Graph &g, const std::vector<ConcreteTensor> &inputs,
                                        std::map<const Value *, ConcreteTensor> *trace,
                                        const ReplayObserver *observer) {
  return replayModule().replayGraph(g, inputs, trace, observer);
}

void loadReplay() { replayModule(); }

void setReplayThreads(int n) { replayModule().setThreads(n); }

std::unique_ptr<Module> importTorchScript(const std::string &path, const std::vector<TensorType> &inputs,
                                          const CustomOps *custom) {
  const TorchModuleApi *api = nullptr;
  try {
    api = &torchModule();
  } catch (const TorchModuleUnavailable &e) {
    throw InputError(SourcePos{path}, std::string("reading a TorchScript file needs LibTorch, which is unavailable: ") +
                                          e.what());
  }
  return api->importTorchScript(path, inputs, custom);
}

}  // namespace torchtv
