// Parser for .tvir (grammar in text_format.h).
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "ir/diagnostic.h"
#include "ir/lexer.h"
#include "ir/limits.h"
#include "ir/text_format.h"

namespace torchtv {

namespace {

class Parser {
public:
  Parser(std::string_view text, const std::string &path, int line = 1, int col = 1)
      : lex_(text, path, line, col) {
    tok_ = lex_.next();
  }

  Module parseModule() {
    Module m;
    m.path = lex_.path();
    while (tok_.kind != Tok::End) {
      if (isIdent("op")) {
        int line, col;
        std::string text = lex_.restOfLine(line, col);
        std::shared_ptr<const OpSchema> schema;
        try {
          schema = std::make_shared<const OpSchema>(parseSchema(text));
        } catch (const InputError &e) {
          lex_.fail(line, col + e.pos().col - 1, e.message());
        }
        if (resolver_.resolve(schema->name))
          lex_.fail(line, col, "op '" + schema->name + "' is already defined");
        resolver_.declare(schema);
        m.customOps[schema->name] = schema;
        tok_ = lex_.next();
      } else if (isIdent("graph")) {
        Token at = take();
        Token name = expectKind(Tok::GraphName, "a graph name such as @reference");
        if (name.text.find("::") != std::string::npos) {
          m.templates.push_back(skipTemplate(at, name));
          continue;
        }
        auto g = parseGraph(name);
        if (m.find(g->name())) fail(at, "graph @" + g->name() + " is defined twice");
        m.graphs.push_back(std::move(g));
      } else {
        fail(tok_, "expected 'graph' or 'op', got " + describe(tok_));
      }
    }
    if (m.graphs.empty() && m.templates.empty()) fail(tok_, "no graph in file");
    return m;
  }

  TensorType parseTypeOnly() {
    TensorType t = type();
    if (tok_.kind != Tok::End) fail(tok_, "unexpected " + describe(tok_) + " after the type");
    return t;
  }

  std::unique_ptr<Graph> instantiate(const TemplateCall &call, const OpResolver &resolver) {
    call_ = &call;
    resolver_ = resolver;
    if (!isIdent("graph")) fail(tok_, "a definition starts with 'graph'");
    take();
    Token name = expectKind(Tok::GraphName, "a graph name");
    return parseGraph(name);
  }

private:
  [[noreturn]] void fail(const Token &t, const std::string &message) const {
    lex_.fail(t.line, t.col, message);
  }
  [[noreturn]] void mismatch(const std::string &why) const { throw TemplateMismatch(why); }
  [[noreturn]] void misfit(const Token &t, const std::string &why) const {
    try {
      fail(t, why);
    } catch (const InputError &e) {
      throw TemplateMisfit(e.what());
    }
  }

  static std::string describe(const Token &t) { return describeToken(t); }

  bool isIdent(const char *s) const { return tok_.kind == Tok::Ident && tok_.text == s; }
  bool isPunct(const char *s) const { return tok_.kind == Tok::Punct && tok_.text == s; }
  Token take() {
    Token t = tok_;
    tok_ = lex_.next();
    return t;
  }
  void expect(const char *punct) {
    if (!isPunct(punct)) fail(tok_, std::string("expected '") + punct + "', got " + describe(tok_));
    take();
  }
  Token expectKind(Tok kind, const char *what) {
    if (tok_.kind != kind) fail(tok_, std::string("expected ") + what + ", got " + describe(tok_));
    return take();
  }

  // --- Note [Fusion templates]: parameters are bound while the header is read.
  void requireTemplate(const Token &t) const {
    if (!call_)
      fail(t, describe(t) + " is only allowed in a fusion definition (a graph named after an op, such as @aten::gelu)");
  }
  std::optional<Dim> boundDim(const std::string &name) const {
    auto d = dimBinds_.find(name);
    if (d != dimBinds_.end()) return d->second;
    auto a = binds_.find(name);
    if (a != binds_.end() && a->second.isInt()) return Dim(a->second.asInt());
    return std::nullopt;
  }
  Attribute boundAttr(const Token &t) const {
    requireTemplate(t);
    auto a = binds_.find(t.text);
    if (a != binds_.end()) return a->second;
    auto d = dimBinds_.find(t.text);
    if (d != dimBinds_.end()) {
      if (!d->second.isConcrete() && !unusedValue_) mismatch("$" + t.text + " is the symbolic dim " + d->second.str());
      if (!d->second.isConcrete()) return int64_t{1};  // a default the call overrides
      return d->second.size();
    }
    fail(t, "parameter $" + t.text + " is not bound by the definition's header");
  }
  // Binds $name to `actual`, or checks that an earlier binding agrees.
  void bindAttr(const std::string &name, const Attribute &actual) {
    if (auto d = boundDim(name)) {
      if (!actual.isInt() || Dim(actual.asInt()) != *d) mismatch("$" + name + " differs");
      return;
    }
    auto [it, inserted] = binds_.emplace(name, actual);
    if (!inserted && it->second != actual) mismatch("$" + name + " differs");
  }

  // A type; inside a template header it is unified with `actual`.
  TensorType type(const TensorType *actual = nullptr) {
    TensorType out;
    if (tok_.kind == Tok::Param) {
      Token p = take();
      requireTemplate(p);
      auto it = binds_.find(p.text);
      if (it != binds_.end()) {
        if (!it->second.isDType()) fail(p, "$" + p.text + " is not a dtype");
        out.dtype = it->second.asDType();
        if (actual && actual->dtype != out.dtype) mismatch("dtype $" + p.text + " differs");
      } else if (actual) {
        out.dtype = actual->dtype;
        binds_[p.text] = actual->dtype;
      } else {
        fail(p, "dtype parameter $" + p.text + " is not bound by the definition's inputs");
      }
    } else {
      Token t = expectKind(Tok::Ident, "a type such as f32[4,8]");
      auto dtype = parseDType(t.text);
      if (!dtype) fail(t, "unknown dtype '" + t.text + "' (expected bool, u8, i8, i16, i32, i64, f16, bf16, f32 or f64)");
      out.dtype = *dtype;
      if (actual && actual->dtype != out.dtype) mismatch("dtype differs");
    }
    Token open = tok_;
    expect("[");
    // `...` first in a header type stands for the operand's leading dims, so the
    // dims written after it bind the trailing ones at any rank.
    if (isPunct("...")) {
      Token dots = take();
      if (!actual) fail(dots, "'...' is only allowed in the input types of a fusion definition's header");
      size_t trailing = countTrailingDims();
      if (actual->shape.size() < trailing) mismatch("rank differs");
      out.shape.assign(actual->shape.begin(), actual->shape.end() - static_cast<std::ptrdiff_t>(trailing));
      if (!isPunct("]")) expect(",");
    }
    while (!isPunct("]")) {
      size_t i = out.shape.size();
      const Dim *want = actual && i < actual->shape.size() ? &actual->shape[i] : nullptr;
      if (actual && !want) mismatch("rank differs");
      if (tok_.kind == Tok::Number) {
        Token n = take();
        char *end = nullptr;
        errno = 0;
        long long v = std::strtoll(n.text.c_str(), &end, 10);
        if (*end || errno || v < 0) fail(n, "bad dimension '" + n.text + "'");
        out.shape.push_back(static_cast<int64_t>(v));
      } else if (tok_.kind == Tok::Ident) {
        std::string sym = take().text;
        std::optional<Dim> bound = call_ ? boundDim(sym) : std::nullopt;
        if (bound) out.shape.push_back(*bound);
        else if (want) out.shape.push_back(dimBinds_.emplace(sym, *want).first->second);
        else out.shape.push_back(Dim::symbol(sym));
      } else {
        fail(tok_, "expected a dimension, got " + describe(tok_));
      }
      if (want && out.shape.back() != *want) mismatch("dim " + std::to_string(i) + " differs");
      if (!isPunct("]")) expect(",");
    }
    take();
    if (actual && out.shape.size() != actual->shape.size()) mismatch("rank differs");
    try {
      checkTensorLimits(out, SourcePos{});
    } catch (const InputError &e) {
      fail(open, e.message());
    }
    return out;
  }

  // How many dims follow up to the closing ']' (a look-ahead on a copy of the lexer).
  size_t countTrailingDims() const {
    Lexer probe = lex_;
    size_t n = 0;
    for (Token t = tok_; !(t.kind == Tok::Punct && t.text == "]"); t = probe.next()) {
      if (t.kind == Tok::End) fail(t, "unexpected end of file in a type");
      if (t.kind == Tok::Number || t.kind == Tok::Ident) ++n;
    }
    return n;
  }

  // `_` (a type left to inference) or a type.
  std::optional<TensorType> typeOrHole(const TensorType *actual = nullptr) {
    if (isIdent("_")) {
      requireTemplate(take());
      if (actual) return *actual;
      return std::nullopt;
    }
    return type(actual);
  }

  Attribute number(const Token &t) {
    if (t.text == "inf") return std::numeric_limits<double>::infinity();
    if (t.text == "-inf") return -std::numeric_limits<double>::infinity();
    char *end = nullptr;
    errno = 0;
    if (t.text.find_first_of(".eE") != std::string::npos) {
      double d = std::strtod(t.text.c_str(), &end);
      if (*end) fail(t, "bad number '" + t.text + "'");
      return d;
    }
    long long v = std::strtoll(t.text.c_str(), &end, 10);
    if (*end || errno == ERANGE) fail(t, "bad integer '" + t.text + "'");
    return static_cast<int64_t>(v);
  }

  Attribute attrValue() {
    if (tok_.kind == Tok::Number) return number(take());
    if (tok_.kind == Tok::String) return take().text;
    if (tok_.kind == Tok::Param) return boundAttr(take());
    if (tok_.kind == Tok::Ident) {
      Token t = take();
      if (t.text == "true") return true;
      if (t.text == "false") return false;
      if (t.text == "none") return NoneValue{};
      if (t.text == "inf") return std::numeric_limits<double>::infinity();
      if (t.text == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (auto d = parseDType(t.text)) return *d;
      if (isPunct("(")) return computed(t);
      fail(t, "unknown attribute value '" + t.text + "' (strings are quoted)");
    }
    if (isPunct("[")) {
      Token open = take();
      std::vector<Attribute> items;
      while (!isPunct("]")) {
        if (tok_.kind != Tok::Number && tok_.kind != Tok::Param && !isIdent("inf") && !isIdent("nan") &&
            !isIdent("true") && !isIdent("false"))
          fail(tok_, "lists hold numbers only, got " + describe(tok_));
        Token at = tok_;
        items.push_back(attrValue());
        if (!items.back().isScalar()) fail(at, "lists hold numbers only, got " + items.back().str());
        if (items.size() > limits().maxListLength)
          fail(open, "list " + limitMessage("max_list_length", limits().maxListLength));
        if (!isPunct("]")) expect(",");
      }
      take();
      bool anyFloat = false;
      for (const auto &a : items) anyFloat = anyFloat || a.isFloat();
      return listAttribute(items, anyFloat);
    }
    fail(tok_, "expected an attribute value, got " + describe(tok_));
  }

  // Note [Computed attributes]
  // A definition may compute a number from what the call binds, in double as
  // ATen computes it: `rsqrt($E)` is 1.0 / std::sqrt(E), the default attention
  // scale of sdp::calculate_scale; `div(2.0, numel(%x))` the mean factor of
  // mse_loss_backward; `sqrt(a)` likewise. The value is a constant of the
  // instantiated graph, so a proof sees exactly the double PyTorch uses (not,
  // say, E^(-1/2) over the reals). numel of a symbolic shape does not match.
  Attribute computed(const Token &fn) {
    requireTemplate(fn);
    expect("(");
    if (fn.text == "numel") {
      Token v = expectKind(Tok::ValueName, "a value such as %x");
      auto it = scope_.find(v.text);
      if (it == scope_.end()) fail(v, "use of undefined value '%" + v.text + "'");
      auto n = numel(it->second->type.shape);
      if (!n && !unusedValue_) mismatch("numel(%" + v.text + ") of a symbolic shape");
      if (!n) return int64_t{1};  // a default the call overrides
      expect(")");
      return *n;
    }
    std::vector<double> args;
    while (!isPunct(")")) {
      Token at = tok_;
      Attribute a = attrValue();
      if (!(a.isInt() || a.isFloat())) fail(at, fn.text + " takes numbers, got " + a.str());
      args.push_back(a.asDouble());
      if (!isPunct(")")) expect(",");
    }
    take();
    using Fn = double (*)(const std::vector<double> &);
    static const std::map<std::string, std::pair<size_t, Fn>> kFunctions = {
        {"rsqrt", {1, [](const std::vector<double> &a) { return 1.0 / std::sqrt(a[0]); }}},
        {"sqrt", {1, [](const std::vector<double> &a) { return std::sqrt(a[0]); }}},
        {"div", {2, [](const std::vector<double> &a) { return a[0] / a[1]; }}},
    };
    auto f = kFunctions.find(fn.text);
    if (f == kFunctions.end()) fail(fn, "unknown function '" + fn.text + "' (known: rsqrt, sqrt, div, numel)");
    if (args.size() != f->second.first)
      fail(fn, fn.text + " takes " + std::to_string(f->second.first) + " argument(s), got " + std::to_string(args.size()));
    return f->second.second(args);
  }

  // One `name=pattern` of a definition header against the call's attribute.
  void attrPattern(const Attribute &actual) {
    if (isIdent("_")) {
      take();
      return;
    }
    if (tok_.kind == Tok::Param) {
      std::string name = take().text;
      // `$s | value`: binds $s to the call's argument, or to value when the
      // call passes None (an optional argument's default, e.g. the attention scale).
      if (isPunct("|")) {
        take();
        // Read (and, unless the call passes None, ignore) the default: a symbolic
        // dim it would compute with must not reject a call that gives a value.
        unusedValue_ = !actual.isNone();
        Attribute fallback = attrValue();
        unusedValue_ = false;
        bindAttr(name, actual.isNone() ? fallback : actual);
        return;
      }
      bindAttr(name, actual);
      return;
    }
    if (isPunct("[") ) {
      take();
      std::vector<int64_t> got = actual.isInts() ? actual.asInts() : std::vector<int64_t>{};
      if (!actual.isInts() && !(actual.isFloats() && actual.asFloats().empty())) mismatch("not a list");
      size_t i = 0;
      while (!isPunct("]")) {
        if (i >= got.size()) mismatch("list length differs");
        if (tok_.kind == Tok::Param) bindAttr(take().text, got[i]);
        else {
          Attribute lit = attrValue();
          int64_t v = lit.isBool() ? lit.asBool() : lit.isInt() ? lit.asInt() : INT64_MIN;
          if (v != got[i]) mismatch("list element differs");
        }
        ++i;
        if (!isPunct("]")) expect(",");
      }
      take();
      if (i != got.size()) mismatch("list length differs");
      return;
    }
    Attribute lit = attrValue();
    // A literal guard compares as the call's argument kind would store it.
    if (actual.isFloat() && lit.isInt()) lit = static_cast<double>(lit.asInt());
    if (lit != actual) mismatch("attribute differs");
  }

  void attrPatterns() {
    Token open = tok_;
    std::set<std::string> seen;
    if (isPunct("{")) {
      take();
      while (!isPunct("}")) {
        Token key = expectKind(Tok::Ident, "an attribute name");
        auto it = call_->attrs->find(key.text);
        if (it == call_->attrs->end()) fail(key, "the op has no attribute '" + key.text + "'");
        if (!seen.insert(key.text).second) fail(key, "attribute '" + key.text + "' given twice");
        expect("=");
        attrPattern(it->second);
        if (!isPunct("}")) expect(",");
      }
      take();
    }
    // Soundness: a definition must say what it does with every argument.
    for (const auto &[name, value] : *call_->attrs)
      if (!seen.count(name))
        fail(open, "the definition does not bind attribute '" + name + "' (write " + name +
                       "=_ if the definition holds for every value)");
  }

  Value *use(Graph &, const Token &t) {
    auto it = scope_.find(t.text);
    if (it == scope_.end()) fail(t, "use of undefined value '%" + t.text + "'");
    return it->second;
  }

  void define(const Token &t) {
    if (scope_.count(t.text)) fail(t, "value '%" + t.text + "' is defined twice");
  }

  // Skips a definition (a graph named after an op) and keeps its text; it is
  // parsed when instantiated for a call.
  GraphTemplate skipTemplate(const Token &graphTok, const Token &name) {
    int depth = 0;
    while (!(depth == 0 && isPunct("->"))) {
      if (tok_.kind == Tok::End) fail(tok_, "unexpected end of file in the header of @" + name.text);
      if (isPunct("(") || isPunct("{") || isPunct("[")) ++depth;
      if (isPunct(")") || isPunct("}") || isPunct("]")) --depth;
      take();
    }
    take();
    for (const char *open : {"(", "{"}) {
      std::string close = *open == '(' ? ")" : "}";
      if (!isPunct(open)) fail(tok_, std::string("expected '") + open + "', got " + describe(tok_));
      depth = 0;
      do {
        if (tok_.kind == Tok::End) fail(tok_, "unexpected end of file inside graph @" + name.text);
        if (isPunct(open)) ++depth;
        if (tok_.kind == Tok::Punct && tok_.text == close) --depth;
        if (depth == 0) break;
        take();
      } while (true);
      Token last = take();
      if (*open == '{') {
        GraphTemplate t;
        t.name = name.text;
        t.path = lex_.path();
        t.line = graphTok.line;
        t.col = graphTok.col;
        t.text = std::string(lex_.text().substr(graphTok.offset, last.offset + 1 - graphTok.offset));
        return t;
      }
    }
    fail(tok_, "unreachable");
  }

  std::unique_ptr<Graph> parseGraph(const Token &name) {
    auto g = std::make_unique<Graph>(name.text);
    scope_.clear();
    expect("(");
    size_t operand = 0;
    while (!isPunct(")")) {
      Token v = expectKind(Tok::ValueName, "an input such as %x");
      define(v);
      expect(":");
      const TensorType *actual = nullptr;
      if (call_) {
        if (operand >= call_->operands.size()) mismatch("more inputs than the call has operands");
        actual = call_->operands[operand++];
        if (isIdent("none")) {
          take();
          if (actual) mismatch("operand %" + v.text + " is present");
          if (!isPunct(")")) expect(",");
          continue;
        }
        if (!actual) mismatch("operand %" + v.text + " is none");
      }
      auto t = typeOrHole(actual);
      scope_[v.text] = g->addInput(v.text, *t);
      if (!isPunct(")")) expect(",");
    }
    take();
    if (call_) {
      if (operand != call_->operands.size()) mismatch("fewer inputs than the call has operands");
      attrPatterns();
    }
    expect("->");
    expect("(");
    std::vector<std::pair<Token, std::optional<TensorType>>> resultTypes;
    while (!isPunct(")")) {
      Token at = tok_;
      const TensorType *actual = nullptr;
      if (call_) {
        if (resultTypes.size() >= call_->results.size()) mismatch("more results than the op has");
        actual = &call_->results[resultTypes.size()];
      }
      resultTypes.emplace_back(at, typeOrHole(actual));
      if (!isPunct(")")) expect(",");
    }
    take();
    if (call_ && resultTypes.size() != call_->results.size()) mismatch("fewer results than the op has");
    expect("{");
    bool returned = false;
    while (!isPunct("}")) {
      if (tok_.kind == Tok::End) fail(tok_, "unexpected end of file inside graph @" + g->name());
      if (returned) fail(tok_, "statement after 'return'");
      if (isIdent("return")) {
        Token ret = take();
        std::vector<Token> values;
        while (tok_.kind == Tok::ValueName) {
          values.push_back(take());
          if (!isPunct(",")) break;
          take();
        }
        if (values.size() != resultTypes.size())
          fail(ret, "returns " + std::to_string(values.size()) + " value(s) but the signature has " +
                        std::to_string(resultTypes.size()));
        for (size_t i = 0; i < values.size(); ++i) {
          Value *v = use(*g, values[i]);
          const auto &want = resultTypes[i].second;
          if (want && v->type != *want && call_)  // want is the call's result type
            misfit(values[i], "the definition returns " + v->type.str() + " where the call has " + want->str());
          if (want && v->type != *want)
            fail(values[i], "returned value has type " + v->type.str() + " but the signature says " +
                                want->str());
          g->addOutput(v);
        }
        returned = true;
        continue;
      }
      statement(*g);
    }
    if (!returned) fail(tok_, "graph @" + g->name() + " has no 'return'");
    take();
    return g;
  }

  void statement(Graph &g) {
    NodeSpec spec;
    std::vector<Token> results;
    std::vector<std::optional<TensorType>> declared;
    while (true) {
      Token v = expectKind(Tok::ValueName, "a result such as %y or 'return'");
      define(v);
      for (const Token &r : results)
        if (r.text == v.text) fail(v, "value '%" + v.text + "' is defined twice");
      expect(":");
      declared.push_back(typeOrHole());
      spec.outputNames.push_back(v.text);
      results.push_back(v);
      if (!isPunct(",")) break;
      take();
    }
    bool allDeclared = true;
    for (const auto &d : declared) allDeclared = allDeclared && d.has_value();
    if (allDeclared)
      for (const auto &d : declared) spec.declaredTypes.push_back(*d);
    expect("=");
    Token opTok = expectKind(Tok::Ident, "an op name such as aten::mul.Tensor");
    spec.op = opTok.text;
    expect("(");
    while (!isPunct(")")) {
      if (isIdent("none")) {
        take();
        spec.inputs.push_back(nullptr);
      } else {
        Token v = expectKind(Tok::ValueName, "an operand such as %x or none");
        spec.inputs.push_back(use(g, v));
      }
      if (!isPunct(")")) expect(",");
    }
    take();
    if (isPunct("{")) {
      take();
      while (!isPunct("}")) {
        Token key = expectKind(Tok::Ident, "an attribute name");
        if (spec.attrs.count(key.text)) fail(key, "attribute '" + key.text + "' given twice");
        expect("=");
        spec.attrs[key.text] = attrValue();
        if (!isPunct("}")) expect(",");
      }
      take();
    }
    if (isIdent("loc")) {
      take();
      expect("(");
      Token file = expectKind(Tok::String, "a file name string");
      expect(":");
      Token line = expectKind(Tok::Number, "a line number");
      expect(")");
      spec.loc = SourceLoc{file.text, std::atoi(line.text.c_str())};
    }
    if (!allDeclared) {
      auto r = resolver_.resolve(spec.op);
      if (r && !r->builtin) fail(opTok, "the result types of custom op " + spec.op + " cannot be inferred; write them");
    }
    try {
      Node *n = buildNode(g, resolver_, spec);
      for (size_t i = 0; i < n->outputs.size() && !allDeclared; ++i)
        if (i < declared.size() && declared[i] && *declared[i] != n->outputs[i]->type)
          throw InputError("result " + std::to_string(i) + " is declared " + declared[i]->str() +
                           " but the op computes " + n->outputs[i]->type.str());
      for (Value *out : n->outputs) scope_[out->name] = out;
    } catch (const InputError &e) {
      fail(opTok, e.message());
    }
  }

  Lexer lex_;
  Token tok_;
  OpResolver resolver_;
  std::map<std::string, Value *> scope_;
  const TemplateCall *call_ = nullptr;
  std::map<std::string, Attribute> binds_;
  std::map<std::string, Dim> dimBinds_;
  bool unusedValue_ = false;  // reading a `$s | default` whose default the call overrides
};

}  // namespace

Module parseModule(std::string_view text, const std::string &path) {
  return Parser(text, path).parseModule();
}

std::unique_ptr<Graph> instantiateTemplate(const GraphTemplate &t, const TemplateCall &call,
                                           const OpResolver &resolver) {
  return Parser(t.text, t.path, t.line, t.col).instantiate(call, resolver);
}

Module parseModuleFile(const std::string &path) {
  std::string text = readFile(path);
  if (text.find('\0') != std::string::npos)
    throw InputError(SourcePos{path, 0, 0}, "not a text file (contains NUL bytes)");
  return parseModule(text, path);
}

TensorType parseTensorType(std::string_view text) {
  return Parser(text, "<type>").parseTypeOnly();
}

}  // namespace torchtv
