// DType <-> c10::ScalarType. Header-only and LibTorch-only: included only by
// the LibTorch module's translation units (src/torch/).
#pragma once

#include <optional>

#include <c10/core/ScalarType.h>

#include "ir/dtype.h"

namespace torchtv {

inline c10::ScalarType toTorchDType(DType t) {
  switch (t) {
  case DType::Bool: return c10::ScalarType::Bool;
  case DType::U8: return c10::ScalarType::Byte;
  case DType::I8: return c10::ScalarType::Char;
  case DType::I16: return c10::ScalarType::Short;
  case DType::I32: return c10::ScalarType::Int;
  case DType::I64: return c10::ScalarType::Long;
  case DType::F16: return c10::ScalarType::Half;
  case DType::BF16: return c10::ScalarType::BFloat16;
  case DType::F32: return c10::ScalarType::Float;
  case DType::F64: return c10::ScalarType::Double;
  case DType::U64: break;  // LibTorch 1.13 has no uint64 (Note [Storage-only dtypes])
  case DType::C64: return c10::ScalarType::ComplexFloat;
  case DType::C128: return c10::ScalarType::ComplexDouble;
  }
  return c10::ScalarType::Undefined;
}

// nullopt for dtypes the IR does not have (complex32, quantized, float8, ...).
inline std::optional<DType> fromTorchDType(c10::ScalarType t) {
  switch (t) {
  case c10::ScalarType::Bool: return DType::Bool;
  case c10::ScalarType::Byte: return DType::U8;
  case c10::ScalarType::Char: return DType::I8;
  case c10::ScalarType::Short: return DType::I16;
  case c10::ScalarType::Int: return DType::I32;
  case c10::ScalarType::Long: return DType::I64;
  case c10::ScalarType::Half: return DType::F16;
  case c10::ScalarType::BFloat16: return DType::BF16;
  case c10::ScalarType::Float: return DType::F32;
  case c10::ScalarType::Double: return DType::F64;
  case c10::ScalarType::ComplexFloat: return DType::C64;
  case c10::ScalarType::ComplexDouble: return DType::C128;
  default: return std::nullopt;
  }
}

}  // namespace torchtv
