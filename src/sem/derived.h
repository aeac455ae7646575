// Derived term operations: each formula written once (Note [Derived operations]).
#pragma once

#include <cmath>
#include <stdexcept>
#include <string>

#include "src/sem/term.h"

namespace torchtv::sem {

// Note [Derived operations]
// sigmoid, silu and gelu (both approximations) are term operations of their
// own (TOps marked Derived in term_ops.def): at level bitwise they are atoms
// (exp, erf and tanh have no IEEE theory, and ATen's kernels round in their
// own order); every other reading of them goes through the formula below,
// written once over an algebra `A` that each interpreter supplies:
//   - the real normal form (normal_form.cpp): polynomials, exp/erf/tanh atoms;
//   - the Z3 encoder at level real (src/smt/encode.cpp): real terms, exp/erf/
//     tanh uninterpreted functions;
//   - the concrete evaluator (src/eval/concrete.cpp): long double arithmetic
//     (double in the library calls) in exactly the order the formula is
//     written, so the formula's shape is also the evaluator's order of
//     rounding: reorder it only knowing that the evaluated bits change (these
//     ops are real-only at level bitwise, ir/bitwise_faithful.cpp, yet the
//     evaluator's values feed refutation).
// `A` provides a value type V and num(double), add, mul, div(a, b, text),
// neg, exp, erf and tanh; `text` names the divisor for the normal form's
// assumptions. The constants are the doubles PyTorch's CPU kernels use.
// fusions/activations.tvir restates gelu and silu in graph ops, derived from
// these (Note [Composite ops: which definition rules] in composite.cpp).

// gelu(approximate="none"): the double nearest 1/sqrt(2).
constexpr double kGeluErfScale = M_SQRT1_2;
// gelu(approximate="tanh"): sqrt(2/pi) and kappa.
constexpr double kGeluTanhBeta = 0.7978845608028654;
constexpr double kGeluTanhKappa = 0.044715;
static_assert(kGeluTanhBeta == M_SQRT2 * M_2_SQRTPI * 0.5, "ATen's kBeta (GeluKernel.cpp)");
// gelu_backward's pdf scale 1/sqrt(2 pi), as ATen computes it (M_2_SQRTPI * M_SQRT1_2 * 0.5).
constexpr double kGeluPdfScale = M_2_SQRTPI * M_SQRT1_2 * 0.5;

// sigmoid(x) = 1 / (1 + exp(-x))
template <class A>
typename A::V sigmoidFormula(A &a, const typename A::V &x) {
  return a.div(a.num(1), a.add(a.num(1), a.exp(a.neg(x))), "1 + exp(-x)");
}

// silu(x) = x * sigmoid(x), computed as x / (1 + exp(-x))
template <class A>
typename A::V siluFormula(A &a, const typename A::V &x) {
  return a.div(x, a.add(a.num(1), a.exp(a.neg(x))), "1 + exp(-x)");
}

// gelu(x) = x * 0.5 * (1 + erf(x * kGeluErfScale))
template <class A>
typename A::V geluFormula(A &a, const typename A::V &x) {
  return a.mul(a.mul(x, a.num(0.5)), a.add(a.num(1), a.erf(a.mul(x, a.num(kGeluErfScale)))));
}

// gelu(x, "tanh") = x * 0.5 * (1 + tanh(beta * (x + kappa * x * x * x)))
template <class A>
typename A::V geluTanhFormula(A &a, const typename A::V &x) {
  auto cube = a.mul(a.mul(a.mul(a.num(kGeluTanhKappa), x), x), x);
  auto inner = a.mul(a.num(kGeluTanhBeta), a.add(x, cube));
  return a.mul(a.mul(x, a.num(0.5)), a.add(a.num(1), a.tanh(inner)));
}

// The formula of a Derived op applied to x.
template <class A>
typename A::V derivedFormula(A &a, TOp op, const typename A::V &x) {
  switch (op) {
  case TOp::Sigmoid: return sigmoidFormula(a, x);
  case TOp::Silu: return siluFormula(a, x);
  case TOp::Gelu: return geluFormula(a, x);
  case TOp::GeluTanh: return geluTanhFormula(a, x);
  default: throw std::logic_error(std::string("no derived formula for ") + topName(op));
  }
}

}  // namespace torchtv::sem
