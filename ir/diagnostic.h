// Errors about the user's input: a file, a position and a cause.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace torchtv {

// Where something sits in an input file. line/col are 1-based; 0 means "unknown".
struct SourcePos {
  std::string file;
  int line = 0;
  int col = 0;

  std::string str() const;  // "file:line:col", dropping unknown parts
};

// Thrown for bad input (malformed files, unknown ops, type mismatches, bad
// usage). The CLI turns it into verdict `error` and exit code 3.
class InputError : public std::runtime_error {
public:
  InputError(SourcePos pos, const std::string &message);
  explicit InputError(const std::string &message) : InputError(SourcePos{}, message) {}

  const SourcePos &pos() const { return pos_; }
  const std::string &message() const { return message_; }

private:
  SourcePos pos_;
  std::string message_;
};

}  // namespace torchtv
