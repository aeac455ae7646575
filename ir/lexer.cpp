#include "ir/lexer.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace torchtv {

namespace {
bool isAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }
}  // namespace

std::string describeToken(const Token &t) {
  switch (t.kind) {
  case Tok::End: return "end of file";
  case Tok::ValueName: return "'%" + t.text + "'";
  case Tok::GraphName: return "'@" + t.text + "'";
  case Tok::String: return "string \"" + t.text + "\"";
  case Tok::Param: return "'$" + t.text + "'";
  default: return "'" + t.text + "'";
  }
}

Token Lexer::next() {
  skipSpaceAndComments();
  Token t;
  t.line = line_;
  t.col = col_;
  t.offset = pos_;
  if (pos_ >= text_.size()) return t;
  char c = text_[pos_];
  auto at = [&](size_t k) { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; };
  auto punct = [&](size_t n) {
    t.kind = Tok::Punct;
    t.text = std::string(text_.substr(pos_, n));
    for (size_t i = 0; i < n; ++i) advance();
    return t;
  };
  if (c == '$') {  // a template parameter (Note [Fusion templates]) or a rule's attribute variable
    advance();
    t.kind = Tok::Param;
    t.text = identChars(false);
    if (t.text.empty()) fail(t, "expected a parameter name after '$'");
    return t;
  }
  if (c == '%' || c == '@') {
    advance();
    t.kind = c == '%' ? Tok::ValueName : Tok::GraphName;
    t.text = identChars(c == '@');
    if (t.text.empty()) fail(t, std::string("expected a name after '") + c + "'");
    return t;
  }
  if (isAlpha(c)) {
    t.kind = Tok::Ident;
    t.text = identChars(true);
    return t;
  }
  if (isDigit(c) || (c == '-' && (isDigit(at(1)) || text_.substr(pos_ + 1, 3) == "inf"))) {
    t.kind = Tok::Number;
    t.text = number();
    return t;
  }
  if (c == '"') {
    t.kind = Tok::String;
    t.text = string(t);
    return t;
  }
  if ((c == '-' || c == '=') && at(1) == '>') return punct(2);  // -> of a signature, => of a rule
  if (text_.substr(pos_, 3) == "...") return punct(3);        // leading dims of a type pattern
  if (std::string_view("()[]{},:=|").find(c) != std::string_view::npos) return punct(1);
  fail(t, std::string("unexpected character '") + c + "'");
}

Attribute Lexer::number(const Token &t) const {
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

std::optional<Attribute> Lexer::literal(const Token &t) const {
  if (t.kind == Tok::Number) return number(t);
  if (t.kind == Tok::String) return Attribute(t.text);
  if (t.kind != Tok::Ident) return std::nullopt;
  if (t.text == "true") return true;
  if (t.text == "false") return false;
  if (t.text == "none") return NoneValue{};
  if (t.text == "inf") return std::numeric_limits<double>::infinity();
  if (t.text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (auto d = parseDType(t.text)) return Attribute(*d);
  return std::nullopt;
}

std::string Lexer::restOfLine(int &line, int &col) {
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) advance();
  line = line_;
  col = col_;
  size_t start = pos_;
  while (pos_ < text_.size() && text_[pos_] != '\n' && text_[pos_] != '#') advance();
  std::string s(text_.substr(start, pos_ - start));
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

void Lexer::advance() {
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void Lexer::skipSpaceAndComments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (std::isspace(static_cast<unsigned char>(c))) advance();
    else if (c == '#') {
      while (pos_ < text_.size() && text_[pos_] != '\n') advance();
    } else break;
  }
}

// Names: letters, digits, '_' and '.', plus '::' when qualified names are
// allowed (and '-' inside a rule's words).
std::string Lexer::identChars(bool qualified) {
  size_t start = pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    char after = pos_ + 2 < text_.size() ? text_[pos_ + 2] : '\0';
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') advance();
    else if (qualified && options_.dashInNames && c == '-' && pos_ > start) advance();
    else if (qualified && c == ':' && pos_ + 1 < text_.size() && text_[pos_ + 1] == ':' && isAlpha(after)) {
      advance();
      advance();
    } else break;
  }
  return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::number() {
  size_t start = pos_;
  if (text_[pos_] == '-') advance();
  if (text_.substr(pos_, 3) == "inf") {
    for (int i = 0; i < 3; ++i) advance();
    return std::string(text_.substr(start, pos_ - start));
  }
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    bool expSign = (c == '-' || c == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E');
    if (isDigit(c) || c == '.' || c == 'e' || c == 'E' || expSign) advance();
    else break;
  }
  return std::string(text_.substr(start, pos_ - start));
}

std::string Lexer::string(const Token &t) {
  advance();  // opening quote
  std::string out;
  while (pos_ < text_.size() && text_[pos_] != '"') {
    if (text_[pos_] == '\n') fail(t, "unterminated string");
    if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
      advance();
      out += text_[pos_] == 'n' ? '\n' : text_[pos_];
    } else {
      out += text_[pos_];
    }
    advance();
  }
  if (pos_ >= text_.size()) fail(t, "unterminated string");
  advance();
  return out;
}

}  // namespace torchtv
