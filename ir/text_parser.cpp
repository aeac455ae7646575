// Parser for .tvir (grammar in text_format.h): text to GraphPatterns
// (graph_pattern.h). It checks syntax only; types, ops and bindings are
// checked where a pattern is built (graph_pattern.cpp).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "ir/diagnostic.h"
#include "ir/graph_pattern.h"
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
    OpResolver resolver;
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
        if (resolver.resolve(schema->name))
          lex_.fail(line, col, "op '" + schema->name + "' is already defined");
        resolver.declare(schema);
        m.customOps[schema->name] = schema;
        tok_ = lex_.next();
      } else if (isIdent("graph")) {
        Token at = take();
        Token name = expectKind(Tok::GraphName, "a graph name such as @reference");
        if (name.text.find("::") != std::string::npos) {
          m.templates.push_back(skipTemplate(at, name));
          continue;
        }
        auto g = buildGraph(graph(name), resolver);
        if (m.find(g->name())) fail(at, "graph @" + g->name() + " is defined twice");
        m.graphs.push_back(std::move(g));
      } else {
        fail(tok_, "expected 'graph' or 'op', got " + describe(tok_));
      }
    }
    if (m.graphs.empty() && m.templates.empty()) fail(tok_, "no graph in file");
    return m;
  }

  TypeExpr parseTypeOnly() {
    TypeExpr t = type();
    if (tok_.kind != Tok::End) fail(tok_, "unexpected " + describe(tok_) + " after the type");
    return t;
  }

  GraphPattern definition() {
    if (!isIdent("graph")) fail(tok_, "a definition starts with 'graph'");
    take();
    Token name = expectKind(Tok::GraphName, "a graph name");
    return graph(name);
  }

private:
  [[noreturn]] void fail(const Token &t, const std::string &message) const { lex_.fail(t, message); }
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

  // A type, or with `holes` also `_`; `none` only where a definition's input may be absent.
  TypeExpr type(bool holes = false, bool none = false) {
    TypeExpr t;
    t.at = tok_;
    if (holes && isIdent("_")) {
      take();
      t.hole = true;
      return t;
    }
    if (none && isIdent("none")) {
      take();
      t.none = true;
      return t;
    }
    if (tok_.kind == Tok::Param) {
      t.dtype = take();
    } else {
      // Checked here, not only when built: the first error in the text is the one reported.
      t.dtype = expectKind(Tok::Ident, "a type such as f32[4,8]");
      if (!parseDType(t.dtype.text))
        fail(t.dtype, "unknown dtype '" + t.dtype.text + "' (expected bool, u8, i8, i16, i32, i64, f16, bf16, f32 or f64)");
    }
    t.open = tok_;
    expect("[");
    if (isPunct("...")) {
      t.dots = take();
      if (!isPunct("]")) expect(",");
    }
    while (!isPunct("]")) {
      if (tok_.kind != Tok::Number && tok_.kind != Tok::Ident) fail(tok_, "expected a dimension, got " + describe(tok_));
      t.dims.push_back(take());
      if (!isPunct("]")) expect(",");
    }
    take();
    return t;
  }

  ValueExpr value() {
    ValueExpr e;
    e.at = tok_;
    if (tok_.kind == Tok::Param) {
      take();
      e.kind = ValueExpr::Kind::Param;
      return e;
    }
    if (auto lit = lex_.literal(tok_)) {
      take();
      e.literal = *lit;
      return e;
    }
    if (tok_.kind == Tok::Ident) {
      Token t = take();
      if (isPunct("(")) return computed(t);
      fail(t, "unknown attribute value '" + t.text + "' (strings are quoted)");
    }
    if (isPunct("[")) {
      Token open = take();
      e.kind = ValueExpr::Kind::List;
      while (!isPunct("]")) {
        if (tok_.kind != Tok::Number && tok_.kind != Tok::Param && !isIdent("inf") && !isIdent("nan") &&
            !isIdent("true") && !isIdent("false"))
          fail(tok_, "lists hold numbers only, got " + describe(tok_));
        e.items.push_back(value());
        if (e.items.size() > limits().maxListLength)
          fail(open, "list " + limitMessage("max_list_length", limits().maxListLength));
        if (!isPunct("]")) expect(",");
      }
      take();
      return e;
    }
    fail(tok_, "expected an attribute value, got " + describe(tok_));
  }

  // Note [Computed attributes] (graph_pattern.cpp): `fn(args)` or `numel(%x)`.
  ValueExpr computed(const Token &fn) {
    ValueExpr e;
    e.at = fn;
    e.kind = ValueExpr::Kind::Call;
    expect("(");
    if (fn.text == "numel") {
      e.kind = ValueExpr::Kind::Numel;
      e.value = expectKind(Tok::ValueName, "a value such as %x");
      expect(")");
      return e;
    }
    while (!isPunct(")")) {
      e.items.push_back(value());
      if (!isPunct(")")) expect(",");
    }
    take();
    return e;
  }

  // One `name=pattern` of a definition header.
  AttrPattern attrPattern(const Token &key) {
    AttrPattern a;
    a.key = key;
    if (isIdent("_")) {
      take();
      return a;
    }
    if (tok_.kind == Tok::Param) {
      a.kind = AttrPattern::Kind::Param;
      a.param = take();
      if (isPunct("|")) {
        take();
        a.fallback = value();
      }
      return a;
    }
    if (isPunct("[")) {
      take();
      a.kind = AttrPattern::Kind::List;
      while (!isPunct("]")) {
        ValueExpr item;
        if (tok_.kind == Tok::Param) {
          item.kind = ValueExpr::Kind::Param;
          item.at = take();
        } else {
          item = value();
        }
        a.items.push_back(std::move(item));
        if (!isPunct("]")) expect(",");
      }
      take();
      return a;
    }
    a.kind = AttrPattern::Kind::Literal;
    a.literal = value();
    return a;
  }

  GraphPattern graph(const Token &name) {
    GraphPattern p;
    p.path = lex_.path();
    p.name = name;
    bool definition = p.isDefinition();
    expect("(");
    while (!isPunct(")")) {
      Token v = expectKind(Tok::ValueName, "an input such as %x");
      expect(":");
      p.inputs.emplace_back(v, type(true, definition));
      if (!isPunct(")")) expect(",");
    }
    take();
    p.attrsOpen = tok_;
    if (definition && isPunct("{")) {
      take();
      while (!isPunct("}")) {
        Token key = expectKind(Tok::Ident, "an attribute name");
        expect("=");
        p.attrs.push_back(attrPattern(key));
        if (!isPunct("}")) expect(",");
      }
      take();
    }
    expect("->");
    expect("(");
    while (!isPunct(")")) {
      p.results.push_back(type(true));
      if (!isPunct(")")) expect(",");
    }
    take();
    expect("{");
    bool returned = false;
    while (!isPunct("}")) {
      if (tok_.kind == Tok::End) fail(tok_, "unexpected end of file inside graph @" + name.text);
      if (returned) fail(tok_, "statement after 'return'");
      if (isIdent("return")) {
        p.ret = take();
        while (tok_.kind == Tok::ValueName) {
          p.returned.push_back(take());
          if (!isPunct(",")) break;
          take();
        }
        returned = true;
        continue;
      }
      p.body.push_back(statement());
    }
    if (!returned) fail(tok_, "graph @" + name.text + " has no 'return'");
    take();
    return p;
  }

  StatementPattern statement() {
    StatementPattern s;
    while (true) {
      Token v = expectKind(Tok::ValueName, "a result such as %y or 'return'");
      expect(":");
      s.results.emplace_back(v, type(true));
      if (!isPunct(",")) break;
      take();
    }
    expect("=");
    s.op = expectKind(Tok::Ident, "an op name such as aten::mul.Tensor");
    expect("(");
    while (!isPunct(")")) {
      if (isIdent("none")) s.operands.push_back(take());
      else s.operands.push_back(expectKind(Tok::ValueName, "an operand such as %x or none"));
      if (!isPunct(")")) expect(",");
    }
    take();
    if (isPunct("{")) {
      take();
      while (!isPunct("}")) {
        Token key = expectKind(Tok::Ident, "an attribute name");
        expect("=");
        s.attrs.emplace_back(key, value());
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
      s.loc = SourceLoc{file.text, std::atoi(line.text.c_str())};
    }
    return s;
  }

  // Skips a definition (a graph named after an op) and keeps its text; it is
  // read into a GraphPattern once, by the fusion library that uses it.
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

  Lexer lex_;
  Token tok_;
};

}  // namespace

Module parseModule(std::string_view text, const std::string &path) {
  return Parser(text, path).parseModule();
}

GraphPattern parseGraphPattern(const GraphTemplate &t) {
  return Parser(t.text, t.path, t.line, t.col).definition();
}

Module parseModuleFile(const std::string &path) {
  std::string text = readFile(path);
  if (text.find('\0') != std::string::npos)
    throw InputError(SourcePos{path, 0, 0}, "not a text file (contains NUL bytes)");
  return parseModule(text, path);
}

TensorType parseTensorType(std::string_view text) {
  GraphPattern none;
  none.path = "<type>";
  TypeExpr t = Parser(text, none.path).parseTypeOnly();
  return *PatternBuilder(none, OpResolver(), false).type(t);
}

}  // namespace torchtv
