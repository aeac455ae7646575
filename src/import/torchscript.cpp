// Forwards to the LibTorch module, loaded on first use (Note [LibTorch module]).
#include "src/import/torchscript.h"

#include "ir/diagnostic.h"
#include "src/torch_module/torch_module.h"

namespace torchtv {

std::unique_ptr<Module> importTorchScript(const std::string &path, const std::vector<TensorType> &inputs) {
  const TorchModuleApi *api = nullptr;
  try {
    api = &torchModule();
  } catch (const TorchModuleUnavailable &e) {
    throw InputError(SourcePos{path}, std::string("reading a TorchScript file needs LibTorch, which is unavailable: ") +
                                          e.what());
  }
  return api->importTorchScript(path, inputs);
}

}  // namespace torchtv
