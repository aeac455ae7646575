// Hard caps on what torchtv reads, named in one place (issue 8: hostile input).
//
// Note [Input limits]
// A CI gate reads files anyone can change in a pull request. Every reader
// checks these caps before the work they bound (before allocating, recursing
// or building), and past a cap throws InputError naming the cap and its value
// ("exceeds limit max_rank = 16") -> verdict `error`, exit 3. A cap is never a
// crash, an OOM kill or a silent truncation. docs/trust.md's "Caps" table
// lists them; keep it in sync.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/diagnostic.h"

namespace torchtv {

struct TensorType;

struct Limits {
  uint64_t maxFileBytes = uint64_t(512) << 20;      // any one input file, or one archive entry
  uint64_t maxArchiveEntries = 100000;              // entries in a .pt2 zip
  uint64_t maxNodesPerGraph = uint64_t(1) << 20;    // nodes in one graph (readers and expansion)
  uint64_t maxRank = 16;                            // dims of one tensor
  int64_t maxDim = int64_t(1) << 40;                // one concrete dim
  int64_t maxNumel = int64_t(1) << 48;              // product of a tensor's concrete dims
  uint64_t maxListLength = 65536;                   // elements of one list attribute
  uint64_t maxNestingDepth = 256;                   // [ and { nesting in JSON and TOML text
};

// The caps in force: the defaults, or a test's ScopedLimits.
const Limits &limits();

// Replaces the caps for its lifetime (tests only: lets a test cross a cap
// with a small input instead of a huge one).
class ScopedLimits {
public:
  explicit ScopedLimits(const Limits &l);
  ~ScopedLimits();
  ScopedLimits(const ScopedLimits &) = delete;
  ScopedLimits &operator=(const ScopedLimits &) = delete;

private:
  Limits saved_;
};

// "exceeds limit max_rank = 16": the one spelling of a cap in messages.
std::string limitMessage(const char *name, uint64_t value);

// InputError at `pos` when `type` has too many dims, a dim or a numel past its cap.
void checkTensorLimits(const TensorType &type, const SourcePos &pos);

// InputError when `bytes` (a file's or an entry's size) passes max_file_bytes.
void checkFileSize(uint64_t bytes, const SourcePos &pos);

enum class NestingSyntax { Json, Toml };

// Scans text for [ and { nesting outside strings (and TOML comments) and
// throws InputError at the first bracket past max_nesting_depth. Run before a
// recursive parser (nlohmann, toml11) so that deep nesting cannot overflow
// the stack. Unbalanced brackets are left for the parser to report.
void checkNestingDepth(std::string_view text, NestingSyntax syntax, const std::string &path);

}  // namespace torchtv
