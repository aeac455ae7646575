// The LibTorch module's one exported symbol (Note [LibTorch module]).
#include "src/torch/torch_impl.h"
#include "src/torch/torch_module.h"

extern "C" __attribute__((visibility("default"))) const torchtv::TorchModuleApi *torchtv_torch_module() {
  static const torchtv::TorchModuleApi api{torchtv::kTorchModuleAbi, &torchtv::torch_impl::importTorchScript,
                                           &torchtv::torch_impl::canReplay, &torchtv::torch_impl::replayGraph,
                                           &torchtv::torch_impl::setThreads};
  return &api;
}
