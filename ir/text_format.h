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
// kept (Module::templates) and parsed once per distinct call, with the call's
// operand types and attributes bound to the header:
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
//   text_parser.cpp).
#pragma once

#include <memory>
#include <stdexcept>

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

// The call a template is instantiated for.
struct TemplateCall {
  std::vector<const TensorType *> operands;  // nullptr for an absent optional operand
  const AttributeMap *attrs = nullptr;
  std::vector<TensorType> results;
};

// The template's header does not match the call (not an error).
class TemplateMismatch : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The header matches the call, but the body returns a value whose type is not
// the call's result type (a CPU flash-attention kernel returns its log-sum-exp
// in f32 for f16 inputs where a definition says f16): the definition does not
// fit this call, which stays uninterpreted. what() says where and why.
class TemplateMisfit : public TemplateMismatch {
public:
  using TemplateMismatch::TemplateMismatch;
};

// Parses a definition for one call. Throws TemplateMismatch when the header
// does not match, TemplateMisfit when the body's results do not fit the call,
// InputError (with the definition's file:line:col) when the definition is
// malformed or does not type-check for this call.
std::unique_ptr<Graph> instantiateTemplate(const GraphTemplate &t, const TemplateCall &call,
                                           const OpResolver &resolver);

std::string printGraph(const Graph &g);
std::string printModule(const Module &m);

}  // namespace torchtv
