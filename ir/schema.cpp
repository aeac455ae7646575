#include "ir/schema.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "ir/diagnostic.h"

namespace torchtv {

const ArgSpec *OpSchema::findArg(std::string_view argName) const {
  for (const ArgSpec &a : args)
    if (a.name == argName) return &a;
  return nullptr;
}

std::vector<const ArgSpec *> OpSchema::tensorArgs() const {
  std::vector<const ArgSpec *> out;
  for (const ArgSpec &a : args)
    if (a.isTensor()) out.push_back(&a);
  return out;
}

// Note [Operands of a tensor list]
// A node's operands are its tensor arguments in schema order, with a tensor
// list (`Tensor[] tensors` of cat, `Tensor?[] indices` of index_put) spread
// over as many operands as it has elements. The list takes what the plain
// tensor arguments leave, so its length is known only when the schema has at
// most one list; with two, the split between them is not recorded, so such a
// node cannot be built.
std::vector<const ArgSpec *> OpSchema::operandArgs(size_t numOperands) const {
  size_t fixed = 0, lists = 0;
  for (const ArgSpec &a : args) {
    if (a.kind == ArgKind::Tensor) ++fixed;
    if (a.kind == ArgKind::TensorList) ++lists;
  }
  if (lists > 1) throw InputError("ops with more than one tensor list argument are not supported");
  if ((lists == 0 && numOperands != fixed) || numOperands < fixed)
    throw InputError("expects " + std::string(lists ? "at least " : "") + std::to_string(fixed) +
                     " tensor operand(s), got " + std::to_string(numOperands));
  std::vector<const ArgSpec *> out;
  for (const ArgSpec &a : args) {
    if (a.kind == ArgKind::Tensor) out.push_back(&a);
    if (a.kind == ArgKind::TensorList) out.insert(out.end(), numOperands - fixed, &a);
  }
  return out;
}

bool OpSchema::mutatesInput() const {
  for (const ArgSpec &a : args)
    if (a.mutates) return true;
  return false;
}

std::string canonicalOpName(std::string_view qualifiedName, std::string_view overload) {
  std::string name(qualifiedName);
  if (!overload.empty() && overload != "default") name += "." + std::string(overload);
  return name;
}

namespace {

class SchemaParser {
public:
  explicit SchemaParser(std::string_view text) : text_(text) {}

  OpSchema parse() {
    OpSchema schema;
    schema.text = std::string(text_);
    std::string qualified = ident(/*allowColons=*/true);
    std::string overload;
    if (peek() == '.') {
      ++pos_;
      overload = ident(false);
    }
    schema.name = canonicalOpName(qualified, overload);
    expect('(');
    bool kwargOnly = false;
    skipSpace();
    while (peek() != ')') {
      if (peek() == '*') {
        ++pos_;
        kwargOnly = true;
      } else {
        ArgSpec arg = argument();
        arg.kwargOnly = kwargOnly;
        schema.args.push_back(std::move(arg));
      }
      skipSpace();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') fail("expected ',' or ')'");
      skipSpace();
    }
    ++pos_;
    skipSpace();
    if (!consume("->")) fail("expected '->'");
    returns(schema);
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected text after the return type");
    return schema;
  }

private:
  [[noreturn]] void fail(const std::string &message) const {
    throw InputError(SourcePos{"<schema>", 1, static_cast<int>(pos_) + 1},
                     message + " in schema '" + std::string(text_) + "'");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(std::string_view s) {
    skipSpace();
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string ident(bool allowColons) {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ++pos_;
      else if (allowColons && c == ':' && peek2() == ':') pos_ += 2;
      else break;
    }
    if (start == pos_) fail("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }
  char peek2() const { return pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0'; }

  // Type grammar: Base ['(' alias ')'] ['[' [N] ']'] ['?'], e.g. Tensor(a!), int[1]?, Tensor?[].
  ArgSpec argument() {
    ArgSpec arg;
    size_t typeStart = pos_;
    std::string base = ident(false);
    bool elemOptional = false, isList = false;
    if (peek() == '(') {  // alias annotation
      size_t close = text_.find(')', pos_);
      if (close == std::string_view::npos) fail("unterminated alias annotation");
      arg.mutates = text_.substr(pos_, close - pos_).find('!') != std::string_view::npos;
      pos_ = close + 1;
    }
    if (peek() == '?') {
      ++pos_;
      elemOptional = true;
    }
    if (peek() == '[') {
      size_t close = text_.find(']', pos_);
      if (close == std::string_view::npos) fail("unterminated list type");
      arg.fixedLength = static_cast<size_t>(std::atoi(std::string(text_.substr(pos_ + 1, close - pos_ - 1)).c_str()));
      pos_ = close + 1;
      isList = true;
    }
    if (peek() == '?') {
      ++pos_;
      arg.optional = true;
    }
    if (!isList && elemOptional) arg.optional = true;
    arg.elementsOptional = isList && elemOptional;
    arg.typeText = std::string(text_.substr(typeStart, pos_ - typeStart));
    arg.kind = kindOf(base, isList);
    arg.name = ident(false);
    skipSpace();
    if (peek() == '=') {
      ++pos_;
      arg.defaultValue = defaultValue(arg.kind, arg.fixedLength);
    }
    return arg;
  }

  ArgKind kindOf(const std::string &base, bool isList) {
    if (base == "Tensor") return isList ? ArgKind::TensorList : ArgKind::Tensor;
    if (base == "int" || base == "SymInt") return isList ? ArgKind::IntList : ArgKind::Int;
    if (base == "float") return isList ? ArgKind::FloatList : ArgKind::Float;
    if (base == "bool") return isList ? ArgKind::BoolList : ArgKind::Bool;
    if (isList) return ArgKind::Other;
    if (base == "Scalar") return ArgKind::Scalar;
    if (base == "ScalarType") return ArgKind::ScalarType;
    if (base == "str") return ArgKind::String;
    if (base == "Device") return ArgKind::Device;
    if (base == "Layout") return ArgKind::Layout;
    if (base == "MemoryFormat") return ArgKind::MemoryFormat;
    return ArgKind::Other;
  }

  Attribute number(const std::string &tok) {
    bool isFloat = tok.find_first_of(".eE") != std::string::npos;
    char *end = nullptr;
    if (isFloat) {
      double d = std::strtod(tok.c_str(), &end);
      if (*end) fail("bad number '" + tok + "'");
      return d;
    }
    long long i = std::strtoll(tok.c_str(), &end, 10);
    if (*end) fail("bad number '" + tok + "'");
    return static_cast<int64_t>(i);
  }

  std::string token() {
    skipSpace();
    size_t start = pos_;
    if (peek() == '"' || peek() == '\'') {
      char q = text_[pos_++];
      while (pos_ < text_.size() && text_[pos_] != q) ++pos_;
      if (pos_ >= text_.size()) fail("unterminated string");
      ++pos_;
      return std::string(text_.substr(start, pos_ - start));
    }
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-' ||
          c == '+')
        ++pos_;
      else break;
    }
    if (start == pos_) fail("expected a default value");
    return std::string(text_.substr(start, pos_ - start));
  }

  Attribute defaultValue(ArgKind kind, size_t fixedLength) {
    skipSpace();
    if (peek() == '[') {
      ++pos_;
      std::vector<Attribute> items;
      skipSpace();
      while (peek() != ']') {
        items.push_back(scalarDefault(token(), kind));
        if (!items.back().isScalar()) fail("a list default holds numbers only");
        skipSpace();
        if (peek() == ',') ++pos_;
        skipSpace();
      }
      ++pos_;
      return listAttribute(items, kind == ArgKind::FloatList);
    }
    std::string tok = token();
    Attribute single = scalarDefault(tok, kind);
    // `int[2] stride=1` means [1, 1] (Note [Fixed-length lists]); `int[] x=1` a list of one.
    if ((kind == ArgKind::IntList || kind == ArgKind::FloatList || kind == ArgKind::BoolList) &&
        !single.isNone()) {
      if (!single.isScalar()) fail("a list default holds numbers only");
      return listAttribute(std::vector<Attribute>(std::max<size_t>(fixedLength, 1), single),
                           kind == ArgKind::FloatList);
    }
    return single;
  }

  Attribute scalarDefault(const std::string &tok, ArgKind kind) {
    if (tok == "None") return NoneValue{};
    if (tok == "True") return true;
    if (tok == "False") return false;
    if (tok[0] == '"' || tok[0] == '\'') return tok.substr(1, tok.size() - 2);
    // at::Reduction enum spelled by name in loss schemas.
    if (tok == "Mean") return int64_t(1);
    if (tok == "Sum") return int64_t(2);
    if (std::isdigit(static_cast<unsigned char>(tok[0])) || tok[0] == '-' || tok[0] == '+') {
      Attribute n = number(tok);
      if (kind == ArgKind::Float && n.isInt()) return static_cast<double>(n.asInt());
      if (kind == ArgKind::Bool && n.isInt()) return n.asInt() != 0;
      return n;
    }
    return tok;  // contiguous_format, strided, ...: kept as names
  }

  void returns(OpSchema &schema) {
    skipSpace();
    if (peek() == '(') {
      ++pos_;
      int count = 0;
      skipSpace();
      while (peek() != ')') {
        ArgSpec r = returnType();
        schema.returnsAlias = schema.returnsAlias || r.aliased;
        if (r.kind != ArgKind::Tensor) schema.returnsList = schema.returnsList || r.kind == ArgKind::TensorList;
        ++count;
        skipSpace();
        if (peek() == ',') ++pos_;
        else if (peek() != ')') fail("expected ',' or ')' in returns");
        skipSpace();
      }
      ++pos_;
      schema.numReturns = count;
      return;
    }
    ArgSpec r = returnType();
    schema.returnsAlias = r.aliased;
    schema.returnsList = r.kind == ArgKind::TensorList;
    schema.numReturns = 1;
  }

  ArgSpec returnType() {
    ArgSpec r;
    std::string base = ident(false);
    bool isList = false;
    if (peek() == '(') {
      size_t close = text_.find(')', pos_);
      if (close == std::string_view::npos) fail("unterminated alias annotation");
      pos_ = close + 1;
      r.aliased = true;
    }
    if (peek() == '[') {
      size_t close = text_.find(']', pos_);
      if (close == std::string_view::npos) fail("unterminated list type");
      pos_ = close + 1;
      isList = true;
    }
    r.kind = kindOf(base, isList);
    skipSpace();
    // optional return name
    if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') ident(false);
    return r;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

OpSchema parseSchema(std::string_view text) { return SchemaParser(text).parse(); }

}  // namespace torchtv
