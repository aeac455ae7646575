// The one lexer of torchtv's own text languages: .tvir graphs and fusion
// definitions (ir/text_parser.cpp) and rewrite rules (src/normalize/rule_parser.cpp).
// Both read the same words: `%value`, `$param`, `@graph`, qualified op names
// (`aten::mul.Tensor`), numbers (`-inf`, `1e-5`), "strings" and punctuation;
// `#` starts a comment. Every token carries its line and column, so that a
// parser's error names file, line and cause.
//
// ATen schema strings (ir/schema.cpp) are not read with it: that language is
// PyTorch's (`Tensor(a!)`, `int[1]?`, `*`, 'single quotes', True/None), one
// line embedded in a .tvir `op` line or in the registry, with errors placed by
// column within that line; tokens for it would be a third dialect, not a share.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/attribute.h"
#include "ir/diagnostic.h"

namespace torchtv {

enum class Tok { End, Ident, ValueName, GraphName, Number, String, Punct, Param };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // without the sigil of %, $ and @ names; unescaped for strings
  int line = 1, col = 1;
  size_t offset = 0;
};

// How a token is quoted in a message: 'x', '%x', "end of file".
std::string describeToken(const Token &t);

class Lexer {
public:
  struct Options {
    // Rule names are kebab-case (`pow-two-is-square`): '-' inside a word.
    bool dashInNames = false;
  };

  Lexer(std::string_view text, std::string path, int line = 1, int col = 1)
      : Lexer(text, std::move(path), Options{}, line, col) {}
  Lexer(std::string_view text, std::string path, Options options, int line = 1, int col = 1)
      : text_(text), path_(std::move(path)), options_(options), line_(line), col_(col) {}

  const std::string &path() const { return path_; }
  std::string_view text() const { return text_; }

  [[noreturn]] void fail(int line, int col, const std::string &message) const {
    throw InputError(SourcePos{path_, line, col}, message);
  }
  [[noreturn]] void fail(const Token &t, const std::string &message) const { fail(t.line, t.col, message); }

  Token next();

  // The value of a Number token: an int, or a double when it has '.', 'e' or
  // is -inf; an error at the token when it does not read back whole.
  Attribute number(const Token &t) const;
  // The value a token spells on its own, in .tvir and rules alike: a number,
  // a string, true/false/none/inf/nan or a dtype; nullopt for anything else.
  std::optional<Attribute> literal(const Token &t) const;

  // The rest of the current line (for `op` declarations), trimmed.
  std::string restOfLine(int &line, int &col);

private:
  void advance();
  void skipSpaceAndComments();
  std::string identChars(bool qualified);
  std::string number();
  std::string string(const Token &t);

  std::string_view text_;
  std::string path_;
  Options options_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

}  // namespace torchtv
