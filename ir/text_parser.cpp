// Parser for .tvir (grammar in text_format.h).
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "ir/diagnostic.h"
#include "ir/text_format.h"

namespace torchtv {

namespace {

enum class Tok { End, Ident, ValueName, GraphName, Number, String, Punct };

struct Token {
  Tok kind = Tok::End;
  std::string text;
  int line = 1, col = 1;
};

class Lexer {
public:
  Lexer(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {}

  const std::string &path() const { return path_; }

  [[noreturn]] void fail(int line, int col, const std::string &message) const {
    throw InputError(SourcePos{path_, line, col}, message);
  }

  Token next() {
    skipSpaceAndComments();
    Token t;
    t.line = line_;
    t.col = col_;
    if (pos_ >= text_.size()) return t;
    char c = text_[pos_];
    if (c == '%' || c == '@') {
      advance();
      t.kind = c == '%' ? Tok::ValueName : Tok::GraphName;
      t.text = identChars(c == '@');
      if (t.text.empty()) fail(t.line, t.col, std::string("expected a name after '") + c + "'");
      return t;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      t.kind = Tok::Ident;
      t.text = identChars(true);
      return t;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '-' && pos_ + 1 < text_.size() &&
         (std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])) || text_.substr(pos_ + 1, 3) == "inf"))) {
      t.kind = Tok::Number;
      t.text = number();
      return t;
    }
    if (c == '"') {
      t.kind = Tok::String;
      t.text = string(t);
      return t;
    }
    if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '>') {
      advance();
      advance();
      t.kind = Tok::Punct;
      t.text = "->";
      return t;
    }
    if (std::string_view("()[]{},:=").find(c) != std::string_view::npos) {
      advance();
      t.kind = Tok::Punct;
      t.text = std::string(1, c);
      return t;
    }
    fail(t.line, t.col, std::string("unexpected character '") + c + "'");
  }

  // The rest of the current line (for `op` declarations), trimmed.
  std::string restOfLine(int &line, int &col) {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) advance();
    line = line_;
    col = col_;
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '#') advance();
    std::string s(text_.substr(start, pos_ - start));
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    return s;
  }

private:
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void skipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) advance();
      else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else break;
    }
  }

  // Names: letters, digits, '_' and '.', plus '::' when qualified names are allowed.
  std::string identChars(bool qualified) {
    size_t start = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') advance();
      else if (qualified && c == ':' && pos_ + 1 < text_.size() && text_[pos_ + 1] == ':' &&
               pos_ + 2 < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_ + 2])) || text_[pos_ + 2] == '_')) {
        advance();
        advance();
      } else break;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string number() {
    size_t start = pos_;
    if (text_[pos_] == '-') advance();
    if (text_.substr(pos_, 3) == "inf") {
      for (int i = 0; i < 3; ++i) advance();
      return std::string(text_.substr(start, pos_ - start));
    }
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      bool expSign = (c == '-' || c == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || expSign) advance();
      else break;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string string(const Token &t) {
    advance();  // opening quote
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\n') fail(t.line, t.col, "unterminated string");
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
        advance();
        out += text_[pos_] == 'n' ? '\n' : text_[pos_];
      } else {
        out += text_[pos_];
      }
      advance();
    }
    if (pos_ >= text_.size()) fail(t.line, t.col, "unterminated string");
    advance();
    return out;
  }

  std::string_view text_;
  std::string path_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

class Parser {
public:
  Parser(std::string_view text, const std::string &path) : lex_(text, path) { tok_ = lex_.next(); }

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
        Token at = tok_;
        auto g = parseGraph();
        if (m.find(g->name())) fail(at, "graph @" + g->name() + " is defined twice");
        m.graphs.push_back(std::move(g));
      } else {
        fail(tok_, "expected 'graph' or 'op', got " + describe(tok_));
      }
    }
    if (m.graphs.empty()) fail(tok_, "no graph in file");
    return m;
  }

  TensorType parseTypeOnly() {
    TensorType t = type();
    if (tok_.kind != Tok::End) fail(tok_, "unexpected " + describe(tok_) + " after the type");
    return t;
  }

private:
  [[noreturn]] void fail(const Token &t, const std::string &message) const {
    lex_.fail(t.line, t.col, message);
  }

  static std::string describe(const Token &t) {
    switch (t.kind) {
    case Tok::End: return "end of file";
    case Tok::ValueName: return "'%" + t.text + "'";
    case Tok::GraphName: return "'@" + t.text + "'";
    case Tok::String: return "string \"" + t.text + "\"";
    default: return "'" + t.text + "'";
    }
  }

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

  TensorType type() {
    Token t = expectKind(Tok::Ident, "a type such as f32[4,8]");
    auto dtype = parseDType(t.text);
    if (!dtype) fail(t, "unknown dtype '" + t.text + "' (expected bool, u8, i8, i16, i32, i64, f16, bf16, f32 or f64)");
    TensorType out{*dtype, {}};
    expect("[");
    while (!isPunct("]")) {
      if (tok_.kind == Tok::Number) {
        Token n = take();
        char *end = nullptr;
        errno = 0;
        long long v = std::strtoll(n.text.c_str(), &end, 10);
        if (*end || errno || v < 0) fail(n, "bad dimension '" + n.text + "'");
        out.shape.push_back(static_cast<int64_t>(v));
      } else if (tok_.kind == Tok::Ident) {
        out.shape.push_back(Dim::symbol(take().text));
      } else {
        fail(tok_, "expected a dimension, got " + describe(tok_));
      }
      if (!isPunct("]")) expect(",");
    }
    take();
    return out;
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
    if (tok_.kind == Tok::Ident) {
      Token t = take();
      if (t.text == "true") return true;
      if (t.text == "false") return false;
      if (t.text == "none") return NoneValue{};
      if (t.text == "inf") return std::numeric_limits<double>::infinity();
      if (t.text == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (auto d = parseDType(t.text)) return *d;
      fail(t, "unknown attribute value '" + t.text + "' (strings are quoted)");
    }
    if (isPunct("[")) {
      Token open = take();
      std::vector<Attribute> items;
      while (!isPunct("]")) {
        if (tok_.kind != Tok::Number && !isIdent("inf") && !isIdent("nan") && !isIdent("true") && !isIdent("false"))
          fail(tok_, "lists hold numbers only, got " + describe(tok_));
        items.push_back(attrValue());
        if (!isPunct("]")) expect(",");
      }
      take();
      bool anyFloat = false;
      for (const auto &a : items) anyFloat = anyFloat || a.isFloat();
      if (anyFloat) {
        std::vector<double> v;
        for (const auto &a : items) v.push_back(a.asDouble());
        return v;
      }
      std::vector<int64_t> v;
      for (const auto &a : items) v.push_back(a.isBool() ? a.asBool() : a.asInt());
      return v;
    }
    fail(tok_, "expected an attribute value, got " + describe(tok_));
  }

  Value *use(Graph &, const Token &t) {
    auto it = scope_.find(t.text);
    if (it == scope_.end()) fail(t, "use of undefined value '%" + t.text + "'");
    return it->second;
  }

  void define(const Token &t) {
    if (scope_.count(t.text)) fail(t, "value '%" + t.text + "' is defined twice");
  }

  std::unique_ptr<Graph> parseGraph() {
    take();  // 'graph'
    Token name = expectKind(Tok::GraphName, "a graph name such as @reference");
    auto g = std::make_unique<Graph>(name.text);
    scope_.clear();
    expect("(");
    while (!isPunct(")")) {
      Token v = expectKind(Tok::ValueName, "an input such as %x");
      define(v);
      expect(":");
      scope_[v.text] = g->addInput(v.text, type());
      if (!isPunct(")")) expect(",");
    }
    take();
    expect("->");
    expect("(");
    std::vector<std::pair<Token, TensorType>> resultTypes;
    while (!isPunct(")")) {
      Token at = tok_;
      resultTypes.emplace_back(at, type());
      if (!isPunct(")")) expect(",");
    }
    take();
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
          if (v->type != resultTypes[i].second)
            fail(values[i], "returned value has type " + v->type.str() + " but the signature says " +
                                resultTypes[i].second.str());
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
    while (true) {
      Token v = expectKind(Tok::ValueName, "a result such as %y or 'return'");
      define(v);
      for (const Token &r : results)
        if (r.text == v.text) fail(v, "value '%" + v.text + "' is defined twice");
      expect(":");
      spec.declaredTypes.push_back(type());
      spec.outputNames.push_back(v.text);
      results.push_back(v);
      if (!isPunct(",")) break;
      take();
    }
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
    try {
      Node *n = buildNode(g, resolver_, spec);
      for (Value *out : n->outputs) scope_[out->name] = out;
    } catch (const InputError &e) {
      fail(opTok, e.message());
    }
  }

  Lexer lex_;
  Token tok_;
  OpResolver resolver_;
  std::map<std::string, Value *> scope_;
};

}  // namespace

Module parseModule(std::string_view text, const std::string &path) {
  return Parser(text, path).parseModule();
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourcePos{path, 0, 0}, "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(SourcePos{path, 0, 0}, "cannot read file");
  return ss.str();
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
