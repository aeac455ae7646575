// In-place ops in programs that keep them (torch.export's traced form): which
// become their functional twins, and which names read their results afterwards
// (Note [In-place ops in .pt2 programs]).
#pragma once

#include <set>
#include <string>
#include <vector>

namespace torchtv {

// One call of a program, by the names of its tensors.
struct CallSketch {
  std::string op;                    // canonical op name (aten::add_.Tensor)
  std::vector<std::string> argNames;  // every argument the call passes, by name
  std::string self;                  // the tensor passed as `self` ("" when none)
  std::vector<std::string> tensors;  // every tensor operand
  std::vector<std::string> outputs;  // result tensor names ("" for an absent one)
};

struct InPlaceStep {
  std::string twin;                 // import the call as this functional op ("" keeps its own)
  std::vector<std::string> rebind;  // names that read the call's result once it has run
  std::string error;                // why the program cannot be read exactly ("" when it can)
};

// One step per call. `inputs` are the program's placeholders (parameters,
// buffers, constants, user inputs), `outputs` the tensors it returns.
std::vector<InPlaceStep> planInPlace(const std::vector<CallSketch> &calls, const std::set<std::string> &inputs,
                                     const std::set<std::string> &outputs);

// `aten::add_.Tensor` -> `aten::add.Tensor`; "" when `op` is not named as an
// in-place op (a trailing underscore, not a dunder like __and__).
std::string functionalName(const std::string &op);

}  // namespace torchtv
