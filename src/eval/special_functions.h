// The special functions of torch.special and the prims torch._refs uses
// (erfc, lgamma, digamma, erfinv, modified and ordinary Bessel functions,
// regularized incomplete gamma, Hurwitz zeta, fmax/fmin, hypot), evaluated in double.
//
// Note [Special functions]
// These are uninterpreted in proofs (term_ops.def: Unint) and real-only at
// level bitwise (ir/bitwise_faithful.cpp): ATen computes each with its own
// polynomial approximations, so only the concrete evaluator needs values, and
// it uses them to find counterexamples that LibTorch's own kernels then
// confirm. Values follow ATen's conventions at poles and domain edges
// (digamma(0) = -inf with the sign of -0, erfinv(+-1) = +-inf, NaN outside the
// domain) instead of Boost.Math's default of throwing.
#pragma once

#include "src/sem/term.h"

namespace torchtv::eval::special {

double unary(sem::TOp op, double x);
double binary(sem::TOp op, double a, double b);

}  // namespace torchtv::eval::special
