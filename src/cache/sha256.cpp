// FIPS 180-4 SHA-256. A collision-resistant digest, because a key collision in
// the proof cache would answer one obligation with another's proof.
#include "src/cache/sha256.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace torchtv::cache {
namespace {

constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void compress(uint32_t h[8], const unsigned char *block) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = uint32_t(block[4 * i]) << 24 | uint32_t(block[4 * i + 1]) << 16 | uint32_t(block[4 * i + 2]) << 8 |
           uint32_t(block[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

}  // namespace

void Sha256::add(const char *data, size_t size) {
  total_ += size;
  const auto *p = reinterpret_cast<const unsigned char *>(data);
  if (used_ > 0) {
    size_t take = std::min(size, sizeof block_ - used_);
    std::memcpy(block_ + used_, p, take);
    used_ += take, p += take, size -= take;
    if (used_ < sizeof block_) return;
    compress(h_, block_);
    used_ = 0;
  }
  for (; size >= sizeof block_; p += sizeof block_, size -= sizeof block_) compress(h_, p);
  std::memcpy(block_, p, size);
  used_ = size;
}

void Sha256::number(uint32_t n) {
  char bytes[4];
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>(n >> (8 * i));
  add(bytes, sizeof bytes);
}

void Sha256::field(const std::string &s) {
  char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<char>(static_cast<uint64_t>(s.size()) >> (8 * i));
  add(length, sizeof length);
  add(s);
}

std::string Sha256::hex() {
  // The tail: a 1 bit, zeros and the length in bits, in one or two blocks.
  const uint64_t bits = total_ * 8;
  unsigned char tail[128] = {};
  std::memcpy(tail, block_, used_);
  tail[used_] = 0x80;
  size_t blocks = used_ + 9 <= 64 ? 1 : 2;
  for (int i = 0; i < 8; ++i) tail[blocks * 64 - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  for (size_t b = 0; b < blocks; ++b) compress(h_, tail + 64 * b);
  std::string out;
  char buf[9];
  for (uint32_t x : h_) {
    std::snprintf(buf, sizeof buf, "%08x", x);
    out += buf;
  }
  return out;
}

std::string sha256Hex(const std::string &data) {
  Sha256 h;
  h.add(data);
  return h.hex();
}

}  // namespace torchtv::cache
