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
//
// Note [Fusion templates]
// A graph named after an op (`@aten::gelu`, `@mlpfused::bias_relu`) is a
// definition of that op. It is not built when the file is read; its text is
// kept (Module::templates), read once into a GraphPattern (graph_pattern.h)
// by the fusion library, and matched against each distinct call, the call's
// operand types and attributes bound to the header (src/fusion/template_match.cpp):
//
//   graph @aten::_softmax(%x: $T[N,D]) {dim=$dim, half_to_float=false} -> (_) {
//     %m: _ = aten::amax(%x) {dim=[$dim], keepdim=true}
//     ...
//   }
//
// - Inputs are the op's tensor arguments in schema order. An input typed
//   `none` matches an absent optional operand; `_` matches any tensor; a type
//   is unified with the operand's: `$T` binds the dtype, a symbol (N, D) binds
//   that dim, a number must be equal. `...` first in the dims matches any
//   leading dims: `$T[..., L, E]` binds the last two dims at any rank >= 2.
// - `{...}` after the inputs names EVERY non-tensor argument of the op: a
//   literal is a guard (the definition applies only to calls with that value),
//   `$name` binds the value, `[$a, 2]` binds list elements, `_` says the
//   definition holds for any value, `$name | v` binds the call's value or, when
//   the call passes None, v (an optional argument's default). A call the header does not match is left
//   alone (TemplateMismatch); several definitions of one op are tried in order.
// - In the body, `$name` stands for a bound value in attributes and lists
//   (`{dim=[$dim]}`, `{size=[$N, 1]}`), bound symbols in types are replaced by
//   the call's dims, and `_` as a result type means "infer it".
// - A number may be computed from bound values, in the header and the body:
//   `rsqrt($E)`, `div(2.0, numel(%x))` (Note [Computed attributes] in
//   graph_pattern.cpp).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ir/builder.h"
#include "ir/files.h"  // readFile, which callers of parseModule use too
#include "ir/graph.h"

namespace torchtv {

// Parses a whole file's text. `path` is used in error messages. Throws
// InputError("path:line:col: message").
Module parseModule(std::string_view text, const std::string &path);
Module parseModuleFile(const std::string &path);

// Parses a type such as "f32[4,B]"; used by the CLI's --inputs too.
TensorType parseTensorType(std::string_view text);

std::string printGraph(const Graph &g);
std::string printModule(const Module &m);

}  // namespace torchtv
