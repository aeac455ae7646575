#include "ir/dtype.h"

#include <array>

namespace torchtv {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  int bits;
};
constexpr std::array<DTypeInfo, 13> kDTypes{{
    {DType::Bool, "bool", 8},
    {DType::U8, "u8", 8},
    {DType::I8, "i8", 8},
    {DType::I16, "i16", 16},
    {DType::I32, "i32", 32},
    {DType::I64, "i64", 64},
    {DType::F16, "f16", 16},
    {DType::BF16, "bf16", 16},
    {DType::F32, "f32", 32},
    {DType::F64, "f64", 64},
    {DType::U64, "u64", 64},
    {DType::C64, "c64", 64},
    {DType::C128, "c128", 128},
}};
}  // namespace

std::string_view dtypeName(DType t) { return kDTypes[static_cast<int>(t)].name; }

std::optional<DType> parseDType(std::string_view name) {
  for (const auto &info : kDTypes)
    if (info.name == name) return info.type;
  return std::nullopt;
}

bool isFloating(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64;
}
bool isComplex(DType t) { return t == DType::C64 || t == DType::C128; }
bool isIntegral(DType t) { return !isFloating(t) && !isComplex(t) && t != DType::Bool; }
DType componentOf(DType t) {
  if (t == DType::C64) return DType::F32;
  return t == DType::C128 ? DType::F64 : t;
}
int dtypeBits(DType t) { return kDTypes[static_cast<int>(t)].bits; }

DTypeCategory categoryOf(DType t) {
  if (t == DType::Bool) return DTypeCategory::Bool;
  if (isComplex(t)) return DTypeCategory::Complex;
  return isFloating(t) ? DTypeCategory::Floating : DTypeCategory::Integral;
}

DType promoteTypes(DType a, DType b) {
  if (a == b) return a;
  auto ca = categoryOf(a), cb = categoryOf(b);
  if (ca == DTypeCategory::Complex || cb == DTypeCategory::Complex) {
    // Complex wins, with parts as wide as the wider floating operand: c64 with f64 is c128.
    DType parts = promoteTypes(isFloating(componentOf(a)) ? componentOf(a) : DType::F32,
                               isFloating(componentOf(b)) ? componentOf(b) : DType::F32);
    return parts == DType::F64 ? DType::C128 : DType::C64;
  }
  if (ca != cb) return ca > cb ? a : b;  // the higher category wins outright
  if (ca == DTypeCategory::Floating) {
    // f16 and bf16 have no common 16-bit type.
    if (dtypeBits(a) == dtypeBits(b)) return DType::F32;
    return dtypeBits(a) > dtypeBits(b) ? a : b;
  }
  // Integral: u8 mixes with signed types by widening to the next signed type.
  if (a == DType::U8 || b == DType::U8) {
    DType other = a == DType::U8 ? b : a;
    return other == DType::I8 ? DType::I16 : other;
  }
  return dtypeBits(a) > dtypeBits(b) ? a : b;
}

}  // namespace torchtv
