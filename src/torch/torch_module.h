// The LibTorch module: the only code that links LibTorch, loaded on first use.
//
// Note [LibTorch module]
// Loading LibTorch costs about a second of startup (hundreds of shared
// libraries and their static initializers), and most checks never need it:
// only reading a TorchScript .pt file and replaying a counterexample do. All
// that touches LibTorch lives in src/torch/: the translation units that include
// torch headers (torchscript_import.cpp, replay.cpp, module_entry.cpp) are built
// into a shared module, libtorchtv_torch.so, and the loader (loader.cpp, with
// this header, replay.h and torchscript.h, which include no torch header)
// dlopen()s it the first time one of them is needed and implements replay.h
// and torchscript.h through the table below.
//
// - The module is built in the same tree, by the same compiler, from the same
//   ir/ sources (its own private copy, symbols hidden), so C++ types cross the
//   boundary: a Module it returns is freed here, and its InputError and
//   ReplayError are caught here. kTorchModuleAbi guards against a stale module.
//   Its copy of ir/ has its own globals: the op registry, and the caps of
//   ir/limits.h at their defaults (a test's ScopedLimits does not reach it).
// - Where it is looked for: $TORCHTV_TORCH_MODULE when set (and only there),
//   else next to the running executable, else where the build put it.
// - When it cannot be loaded: reading a .pt file is an error (exit 3) naming
//   the module and why; a counterexample that cannot be replayed leaves its
//   output unknown (Note [Replaying counterexamples]): never not_equivalent
//   without replay evidence.
// - Replay runs in forked children that inherit the module loaded here (Note
//   [Replay isolation] in src/verify/counterexample_replay.h): a crash inside
//   LibTorch ends a child, not torchtv.
// - It is never unloaded: Modules it built hold pointers into its code.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "src/torch/replay.h"
#include "src/torch/torchscript.h"

namespace torchtv {

// Bumped whenever TorchModuleApi or a type it passes changes.
constexpr int kTorchModuleAbi = 4;

struct TorchModuleApi {
  int abi = kTorchModuleAbi;
  // src/torch/torchscript.h, importTorchScript.
  std::unique_ptr<Module> (*importTorchScript)(const std::string &path, const std::vector<TensorType> &inputs,
                                               const CustomOps *custom);
  // src/torch/replay.h, canReplay.
  bool (*canReplay)(const OpSchema &schema);
  // src/torch/replay.h, replayGraph.
  std::vector<ConcreteTensor> (*replayGraph)(const Graph &g, const std::vector<ConcreteTensor> &inputs,
                                             std::map<const Value *, ConcreteTensor> *trace,
                                             const ReplayObserver *observer);
  // src/torch/replay.h, setReplayThreads.
  void (*setThreads)(int n);
};

// The module's one exported symbol: extern "C" const TorchModuleApi *torchtv_torch_module();
constexpr const char *kTorchModuleEntry = "torchtv_torch_module";
constexpr const char *kTorchModuleFile = "libtorchtv_torch.so";

// The module could not be loaded; what() says which file and why.
class TorchModuleUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Loads the module on the first call (later calls return the same table, or
// throw the same error). Thread-safe.
const TorchModuleApi &torchModule();

// Whether torchModule() has loaded the module in this process.
bool torchModuleLoaded();

}  // namespace torchtv
