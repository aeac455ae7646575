#include "src/normalize/scalar_values.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace torchtv {

namespace {
bool integral(double v) { return std::isfinite(v) && std::floor(v) == v; }

bool exactF16(double v) {
  if (!std::isfinite(v) || v == 0) return true;
  double a = std::fabs(v);
  if (a > 65504) return false;
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  // Normal halves have 11 significant bits; subnormals are multiples of 2^-24.
  double scaled = a >= std::ldexp(1.0, -14) ? std::ldexp(a, 11 - e) : std::ldexp(a, 24);
  return integral(scaled);
}

bool exactBF16(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v)) return true;
  if (static_cast<double>(f) != v) return false;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return (bits & 0xffffu) == 0;
}
}  // namespace

bool exactIn(double v, DType t) {
  switch (t) {
  case DType::F64: return true;
  case DType::F32: return std::isnan(v) || static_cast<double>(static_cast<float>(v)) == v;
  case DType::BF16: return exactBF16(v);
  case DType::F16: return exactF16(v);
  case DType::Bool: return v == 0 || v == 1;
  case DType::U8: return integral(v) && v >= 0 && v <= 255;
  case DType::I8: return integral(v) && v >= -128 && v <= 127;
  case DType::I16: return integral(v) && v >= -32768 && v <= 32767;
  case DType::I32: return integral(v) && v >= -2147483648.0 && v <= 2147483647.0;
  case DType::I64: return integral(v) && std::fabs(v) <= 9007199254740992.0;
  case DType::U64: return integral(v) && v >= 0 && v <= 9007199254740992.0;
  case DType::C64:
  case DType::C128: return false;  // no complex scalars (Note [Complex values as pairs of reals])
  }
  return false;
}

std::optional<Attribute> scalarFor(double v, DType t) {
  if (!exactIn(v, t)) return std::nullopt;
  if (t == DType::Bool) return Attribute(v != 0);
  if (isFloating(t)) return Attribute(v);
  return Attribute(static_cast<int64_t>(v));
}

bool isPowerOfTwo(double v) {
  if (!std::isfinite(v) || v == 0) return false;
  int e = 0;
  double m = std::frexp(std::fabs(v), &e);
  return m == 0.5 && e - 1 >= -126 && e - 1 <= 126;
}

}  // namespace torchtv
