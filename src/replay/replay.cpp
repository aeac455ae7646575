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

}  // namespace torchtv
