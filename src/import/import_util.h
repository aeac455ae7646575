// Helpers shared by the importers of foreign graph files (TorchScript, .pt2).
#pragma once

#include <cstdint>
#include <string>

#include "ir/builder.h"
#include "ir/diagnostic.h"

namespace torchtv {

// Literal tensors larger than this are refused: a prim::constant stores every
// element in the IR, and a large one is almost always a weight that should be
// a graph input instead.
constexpr int64_t kMaxConstantElements = 4096;

// Adds a prim::constant of `type` holding `data` (row-major; ints for integral
// and bool dtypes, floats otherwise). Throws InputError above the size cap.
Value *addConstantTensor(Graph &g, const OpResolver &ops, const TensorType &type, Attribute data,
                         const std::string &name, const SourceLoc &loc);

// An InputError about one node of a foreign graph: "<op> at <loc>: <message>".
InputError nodeError(const std::string &path, const std::string &op, const SourceLoc &loc,
                     const std::string &message);

// A readable value name from a foreign one ("x.1" -> "x", "12" -> "v").
std::string valueNameHint(const std::string &foreign);

}  // namespace torchtv
