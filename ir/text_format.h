// The .tvir text format: a readable, round-trippable form of the IR.
//
//   # comment
//   op mlpfused::bias_relu(Tensor x, Tensor b) -> Tensor
//   graph @reference(%x: f32[4,16], %w: f32[16]) -> (f32[4,16]) {
//     %sq: f32[4,16] = aten::mul.Tensor(%x, %x) loc("model.py":12)
//     %ms: f32[4,1] = aten::mean.dim(%sq) {dim=[-1], keepdim=true}
//     %y: f32[4,16] = aten::mul.Tensor(%x, %w)
//     return %y
//   }
//
// Operands are the tensor arguments in schema order (`none` for an absent
// optional tensor); `{...}` holds the other arguments by name, defaults may be
// left out. Result types are checked against the op's shape rule.
#pragma once

#include <string>
#include <string_view>

#include "ir/builder.h"
#include "ir/graph.h"

namespace torchtv {

// Parses a whole file's text. `path` is used in error messages. Throws
// InputError("path:line:col: message").
Module parseModule(std::string_view text, const std::string &path);
Module parseModuleFile(const std::string &path);

// Reads a whole file; InputError if it cannot be read.
std::string readFile(const std::string &path);

// Parses a type such as "f32[4,B]"; used by the CLI's --inputs too.
TensorType parseTensorType(std::string_view text);

std::string printGraph(const Graph &g);
std::string printModule(const Module &m);

}  // namespace torchtv
