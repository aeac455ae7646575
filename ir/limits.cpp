#include "ir/limits.h"

#include "ir/shape.h"

namespace torchtv {

namespace {
Limits &current() {
  static Limits l;
  return l;
}
}  // namespace

const Limits &limits() { return current(); }

ScopedLimits::ScopedLimits(const Limits &l) : saved_(current()) { current() = l; }
ScopedLimits::~ScopedLimits() { current() = saved_; }

std::string limitMessage(const char *name, uint64_t value) {
  return std::string("exceeds limit ") + name + " = " + std::to_string(value);
}

void checkTensorLimits(const TensorType &type, const SourcePos &pos) {
  const Limits &l = limits();
  if (type.shape.size() > l.maxRank)
    throw InputError(pos, "tensor of rank " + std::to_string(type.shape.size()) + " " +
                              limitMessage("max_rank", l.maxRank));
  // Note [Input limits]: numel is checked by division so the product never overflows.
  int64_t numel = 1;
  for (const Dim &d : type.shape) {
    if (!d.isConcrete()) continue;
    if (d.size() > l.maxDim)
      throw InputError(pos, "dimension " + std::to_string(d.size()) + " " + limitMessage("max_dim", l.maxDim));
    if (d.size() == 0) return;  // an empty tensor: numel 0 whatever the other dims
    if (numel > l.maxNumel / d.size())
      throw InputError(pos, "tensor " + type.str() + " " + limitMessage("max_numel", l.maxNumel));
    numel *= d.size();
  }
}

void checkFileSize(uint64_t bytes, const SourcePos &pos) {
  if (bytes > limits().maxFileBytes)
    throw InputError(pos, "size " + std::to_string(bytes) + " bytes " +
                              limitMessage("max_file_bytes", limits().maxFileBytes));
}

// The scanner follows each syntax's string rules exactly on valid text (JSON
// "..."; TOML "...", '...', """...""", '''...'''), so it sees the brackets
// the parser will see; where the text stops being valid the parser stops too.
void checkNestingDepth(std::string_view text, NestingSyntax syntax, const std::string &path) {
  const uint64_t cap = limits().maxNestingDepth;
  const bool toml = syntax == NestingSyntax::Toml;
  uint64_t depth = 0;
  int line = 1, col = 0;
  size_t quoteLen = 0;  // 1 or 3 inside a string, 0 outside
  char quote = 0;
  auto at = [&](size_t i) { return i < text.size() ? text[i] : '\0'; };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
    }
    if (quoteLen) {
      if (c == '\\' && quote == '"') {
        ++i;  // the escaped character cannot close the string
        if (at(i) == '\n') ++line, col = 0;
        else ++col;
      } else if (c == quote && (quoteLen == 1 || (at(i + 1) == quote && at(i + 2) == quote))) {
        i += quoteLen - 1;
        col += static_cast<int>(quoteLen) - 1;
        quoteLen = 0;
      }
      continue;
    }
    if (c == '"' || (toml && c == '\'')) {
      quote = c;
      quoteLen = toml && at(i + 1) == c && at(i + 2) == c ? 3 : 1;
      i += quoteLen - 1;
      col += static_cast<int>(quoteLen) - 1;
    } else if (toml && c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '[' || c == '{') {
      if (++depth > cap)
        throw InputError(SourcePos{path, line, col}, "nesting " + limitMessage("max_nesting_depth", cap));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace torchtv
