// Element types of tensors, with PyTorch's promotion rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace torchtv {

// Note [Storage-only dtypes]
// U64 (torch >= 2.3's uint64) exists only so that graphs holding one can be
// read: CUDA flash attention returns its RNG state as a uint64 tensor, which
// only its backward reads. No op has semantics over it (src/sem refuses any
// node that reads or writes one), so such values are compared only
// structurally (the same op on the same operands), and LibTorch 1.13, which
// has no uint64, cannot replay a graph that holds one.
// C64 and C128 (complex64, complex128) are read, then lowered to pairs of reals
// before anything else sees them (Note [Complex values as pairs of reals] in
// src/normalize/lower_complex.cpp); a complex value the lowering leaves has no
// semantics either.
enum class DType { Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64, U64, C64, C128 };

// Text spelling used by .tvir and the capture JSON: bool, u8, i8 ... f64.
std::string_view dtypeName(DType t);
std::optional<DType> parseDType(std::string_view name);

bool isFloating(DType t);  // real floating types only
bool isIntegral(DType t);  // excludes bool
bool isComplex(DType t);
// The dtype of a complex dtype's real and imaginary parts (c64: f32); t itself otherwise.
DType componentOf(DType t);
int dtypeBits(DType t);

// PyTorch's category of a dtype for promotion: bool < integral < floating < complex.
enum class DTypeCategory { Bool, Integral, Floating, Complex };
DTypeCategory categoryOf(DType t);

// torch.promote_types: the smallest type both convert to without losing the
// category (u8 with i8 gives i16; f16 with bf16 gives f32; c64 with f64 gives c128).
DType promoteTypes(DType a, DType b);

}  // namespace torchtv
