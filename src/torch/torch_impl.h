// The LibTorch module's implementations (Note [LibTorch module]); the rest of
// torchtv reaches them through src/torch/torch_module.h, never directly.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/torch/replay.h"
#include "src/torch/torchscript.h"

namespace torch::jit {
struct Graph;
}

namespace torchtv::torch_impl {

// The mapping step of importTorchScript alone, on a graph already in memory
// (fuzz_torchscript parses one from TorchScript IR text). `graph` is inlined in
// place; its first input is `self`, and with no module behind it every
// parameter access is an error.
std::unique_ptr<Module> importTorchScriptGraph(torch::jit::Graph &graph, const std::string &path,
                                               const std::vector<TensorType> &inputs);

// What src/torch/torchscript.h's importTorchScript says.
std::unique_ptr<Module> importTorchScript(const std::string &path, const std::vector<TensorType> &inputs,
                                          const CustomOps *custom);

// Whether `op` is a custom op torchtv declared to LibTorch without a kernel
// (Note [Custom ops in TorchScript files]): never replayed.
bool declaredWithoutKernel(const std::string &op);

// The first line with text of a LibTorch error message: LibTorch starts some
// with a newline ("\nUnknown builtin op: tvx::rmsnorm.\n...").
std::string firstLine(const std::string &message);

// What src/torch/replay.h's canReplay says.
bool canReplay(const OpSchema &schema);

// What src/torch/replay.h's replayGraph says.
std::vector<ConcreteTensor> replayGraph(const Graph &g, const std::vector<ConcreteTensor> &inputs,
                                        std::map<const Value *, ConcreteTensor> *trace, const ReplayObserver *observer);

// What src/torch/replay.h's setReplayThreads says.
void setThreads(int n);

}  // namespace torchtv::torch_impl
