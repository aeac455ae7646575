#include "src/torch_module/torch_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace torchtv {

namespace {

std::string exeDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : exe.parent_path().string();
}

// Note [LibTorch module]: where the module is looked for.
std::vector<std::string> candidates() {
  if (const char *env = std::getenv("TORCHTV_TORCH_MODULE"); env && *env) return {env};
  std::vector<std::string> paths;
  if (std::string dir = exeDir(); !dir.empty()) paths.push_back(dir + "/" + kTorchModuleFile);
#ifdef TORCHTV_TORCH_MODULE_PATH
  paths.push_back(TORCHTV_TORCH_MODULE_PATH);
#endif
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

}  // namespace torchtv
