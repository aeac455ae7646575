// SHA-256, for the proof cache's keys and checksums (no crypto library needed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace torchtv::cache {

// Lower-case hex digest of `data`.
std::string sha256Hex(const std::string &data);

// The same digest, of data given piece by piece (a key too large to build as one string).
class Sha256 {
public:
  void add(const char *data, size_t size);
  void add(const std::string &s) { add(s.data(), s.size()); }
  // `n` as 4 bytes; `s` after its length (8 bytes): a sequence of fields is read back one way only.
  void number(uint32_t n);
  void field(const std::string &s);
  // Lower-case hex; call once, after the last add.
  std::string hex();

private:
  uint32_t h_[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  unsigned char block_[64] = {};
  size_t used_ = 0;    // bytes in block_
  uint64_t total_ = 0;  // bytes added
};

}  // namespace torchtv::cache
