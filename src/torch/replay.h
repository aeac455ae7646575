// Concrete execution of IR graphs through LibTorch: the evidence behind a
// counterexample. Each node is run by calling its ATen op by name through the
// dispatcher, so the replay checks the IR against PyTorch's own kernels.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

#include "ir/graph.h"

namespace torchtv {

// A concrete tensor: its type (every dim concrete) and its elements in
// row-major order. Exact for every float dtype and for ints up to 2^53.
struct ConcreteTensor {
  TensorType type;
  std::vector<double> values;
};

class ReplayError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// LibTorch itself could not be loaded (Note [LibTorch module]): nothing was run.
class ReplayUnavailable : public ReplayError {
public:
  using ReplayError::ReplayError;
};

// An op's kernel raised (a c10::Error) on the values it was given: the input is
// outside the op's domain, or the graph is wrong (Note [Replay outcomes fail closed]).
class ReplayKernelRaised : public ReplayError {
public:
  using ReplayError::ReplayError;
};

// What LibTorch cannot run as the IR states it: an op without a kernel (a custom op), or a
// dtype, layout, memory format or argument LibTorch 1.13 lacks.
class ReplayOpMissing : public ReplayError {
public:
  using ReplayError::ReplayError;
};

// Runs `g` on `inputs` (one per graph input, in order) with LibTorch on the
// CPU, in the LibTorch module (loaded on the first call; ReplayUnavailable
// when it cannot be). prim::constant is built directly; every other op is called through
// c10::Dispatcher by its schema name. `trace`, when given, receives every value
// computed (inputs included). Throws ReplayError naming the node on an op the
// dispatcher does not know (custom ops), an input that does not fit the graph,
// a kernel error, or a result whose type differs from the IR's.
// Whether replayGraph can call `schema`'s op: LibTorch's dispatcher knows the
// op and every argument it takes is in the IR's schema or has a default.
bool canReplay(const OpSchema &schema);

// Called before each node of `g` is run (a replay child reports where it is,
// so that a crash can be named: Note [Replay isolation] in src/verify/counterexample_replay.h).
using ReplayObserver = std::function<void(const Graph &g, const Node &n)>;

std::vector<ConcreteTensor> replayGraph(const Graph &g, const std::vector<ConcreteTensor> &inputs,
                                        std::map<const Value *, ConcreteTensor> *trace = nullptr,
                                        const ReplayObserver *observer = nullptr);

// Loads the LibTorch module now; ReplayUnavailable when it cannot be. A
// process about to fork replay children loads it once, so that no child pays
// for loading it again.
void loadReplay();

// Runs LibTorch's intra-op work on `n` threads in this process (a forked
// replay child uses 1: Note [Replay isolation]).
void setReplayThreads(int n);

}  // namespace torchtv
