// A .tvir graph as read, before it is built: the parser (text_parser.cpp)
// reads every graph into a GraphPattern once; a plain graph is built from it
// at once (buildGraph), a fusion definition is kept and, for each call,
// matched against the call's types and attributes and built with what the
// match binds (src/fusion/template_match.cpp, Note [Fusion templates] in
// text_format.h). Tokens are kept for their positions, so that an error
// while building names the definition's file, line and column.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/attribute.h"
#include "ir/builder.h"
#include "ir/graph.h"
#include "ir/lexer.h"

namespace torchtv {

// An attribute value as written: a literal, `$name`, `[items]`, or a number
// computed from bound values: `fn(args)`, `numel(%x)` (Note [Computed attributes]).
struct ValueExpr {
  enum class Kind { Literal, Param, List, Call, Numel };
  Kind kind = Kind::Literal;
  Token at;  // the literal, the parameter, '[', or the function's name
  Attribute literal;
  std::vector<ValueExpr> items;  // list items, function arguments
  Token value;                   // numel's %x
};

// A tensor type as written: `f32[4, N]`, `$T[..., E]`, `_` (hole) or, for a
// definition's input, `none`.
struct TypeExpr {
  Token at;
  bool hole = false, none = false;
  Token dtype;  // an Ident or a Param
  Token open;   // '['
  std::optional<Token> dots;  // `...` first in the dims
  std::vector<Token> dims;    // each a Number or an Ident
};

// `name=pattern` in a definition's header.
struct AttrPattern {
  enum class Kind { Any, Param, List, Literal };
  Kind kind = Kind::Any;
  Token key, param;
  std::optional<ValueExpr> fallback;  // `$s | v`
  std::vector<ValueExpr> items;       // a list's elements: each a Param or a literal
  ValueExpr literal;
};

struct StatementPattern {
  std::vector<std::pair<Token, TypeExpr>> results;
  Token op;
  std::vector<Token> operands;  // a ValueName, or the Ident `none`
  std::vector<std::pair<Token, ValueExpr>> attrs;
  std::optional<SourceLoc> loc;
};

struct GraphPattern {
  std::string path;
  Token name;
  std::vector<std::pair<Token, TypeExpr>> inputs;
  Token attrsOpen;  // `{` of a definition's attribute patterns, else the token where it would be
  std::vector<AttrPattern> attrs;
  std::vector<TypeExpr> results;
  std::vector<StatementPattern> body;
  Token ret;  // `return`
  std::vector<Token> returned;

  bool isDefinition() const { return name.text.find("::") != std::string::npos; }
};

// Reads one definition's text (GraphTemplate::text); InputError with its
// file:line:col when malformed.
GraphPattern parseGraphPattern(const GraphTemplate &t);

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

// Builds a graph from its pattern. For a plain graph, every type and value is
// written out; for a definition, a matcher (src/fusion) first binds the
// header's parameters against a call through bindType/bindAttr/value, then
// calls buildBody. Errors are InputErrors at the token's position; a
// definition that does not apply to the call throws TemplateMismatch.
class PatternBuilder {
public:
  PatternBuilder(const GraphPattern &p, const OpResolver &resolver, bool definition);

  // A type, unified with `actual` when given (a header's input or result);
  // nullopt for a hole `_` with no actual type.
  std::optional<TensorType> type(const TypeExpr &t, const TensorType *actual = nullptr);
  Attribute value(const ValueExpr &e);
  // Binds $name to `actual`, or checks that an earlier binding agrees.
  void bindAttr(const std::string &name, const Attribute &actual);
  // While true, a `$s | default` is read whose value the call overrides.
  void setUnusedValue(bool unused) { unusedValue_ = unused; }

  Graph &graph() { return *g_; }
  void addInput(const Token &name, const TensorType &t);
  // The statements and the return; `results` are the signature's types.
  std::unique_ptr<Graph> buildBody(const std::vector<std::optional<TensorType>> &results);

  [[noreturn]] void fail(const Token &t, const std::string &message) const;
  [[noreturn]] void mismatch(const std::string &why) const { throw TemplateMismatch(why); }

private:
  void requireTemplate(const Token &t) const;
  std::optional<Dim> boundDim(const std::string &name) const;
  Attribute boundAttr(const Token &t) const;
  Attribute computed(const ValueExpr &e);
  Value *use(const Token &t);
  void define(const Token &t);
  void statement(const StatementPattern &s);

  const GraphPattern &p_;
  OpResolver resolver_;
  bool definition_;
  std::unique_ptr<Graph> g_;
  std::map<std::string, Value *> scope_;
  std::map<std::string, Attribute> binds_;
  std::map<std::string, Dim> dimBinds_;
  bool unusedValue_ = false;
};

// A plain graph (not a definition), built from its pattern.
std::unique_ptr<Graph> buildGraph(const GraphPattern &p, const OpResolver &resolver);

}  // namespace torchtv
