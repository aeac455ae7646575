// Facts about constant numbers that passes and rule preconditions rely on.
#pragma once

#include <optional>

#include "ir/attribute.h"
#include "ir/dtype.h"

namespace torchtv {

// True when `v` converts to `t` and back without change (NaN and infinities
// are representable in every floating type).
bool exactIn(double v, DType t);

// The canonical attribute for a constant of dtype `t` holding `v`: a float for
// floating dtypes, an int for integral ones, a bool for bool; nullopt when
// `v` is not exactly representable in `t`.
std::optional<Attribute> scalarFor(double v, DType t);

// ±2^k with |k| <= 126: both it and its reciprocal are exact in every
// floating dtype's compute type (f32 for f16/bf16/f32, f64 for f64).
bool isPowerOfTwo(double v);

}  // namespace torchtv
