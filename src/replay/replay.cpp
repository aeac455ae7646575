// Forwards to the LibTorch module, loaded on first use (Note [LibTorch module]).
#include "src/replay/replay.h"

#include "src/torch_module/torch_module.h"

namespace torchtv {

bool canReplay(const OpSchema &schema) {
  try {
    return torchModule().canReplay(schema);
  } catch (const TorchModuleUnavailable &) {
    return false;
  }
}

std::vector<ConcreteTensor> replayGraph(const Graph &g, const std::vector<ConcreteTensor> &inputs,
                                        std::map<const Value *, ConcreteTensor> *trace) {
  const TorchModuleApi *api = nullptr;
  try {
    api = &torchModule();
  } catch (const TorchModuleUnavailable &e) {
    throw ReplayUnavailable(std::string("LibTorch replay is unavailable: ") + e.what());
  }
  return api->replayGraph(g, inputs, trace);
}

}  // namespace torchtv
