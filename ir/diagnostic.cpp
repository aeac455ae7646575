#include "ir/diagnostic.h"

namespace torchtv {

std::string SourcePos::str() const {
  std::string s = file;
  if (line > 0) {
    s += (s.empty() ? "" : ":") + std::to_string(line);
    if (col > 0) s += ":" + std::to_string(col);
  }
  return s;
}

static std::string withPos(const SourcePos &pos, const std::string &message) {
  std::string where = pos.str();
  return where.empty() ? message : where + ": " + message;
}

InputError::InputError(SourcePos pos, const std::string &message)
    : std::runtime_error(withPos(pos, message)), pos_(std::move(pos)), message_(message) {}

}  // namespace torchtv
