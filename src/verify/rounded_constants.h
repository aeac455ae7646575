// Constants rounded from the same real (issue 18, item 3): Note [Rounded constants].
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "src/sem/term.h"
#include "src/verify/verdict.h"

namespace torchtv {

class Value;

// Note [Rounded constants]
// `q * (1 / math.sqrt(8))` and `q / math.sqrt(8)` are equal over the reals only if the doubles
// 0.35355339059327373 and 2.8284271247461903 were exact reciprocals, which they are not: the
// real normal forms (exact rationals) differ in one coefficient, by about one rounding. Such a
// pair is no counterexample a user can act on, and no proof either. When two normal-form keys
// differ only in numbers, each pair within one rounding of the dtype the constants compute in
// (relative: 2u, Note [Equivalence up to rounding] in roundings.h), the prover proves the outputs
// equal at level rounded, naming each pair with its difference and line. The keys are compared
// number by number in order, so only forms of the same shape qualify; a planted 1e-6 relative
// change is outside the tolerance of f32 (1.2e-7), and 1e-11 outside that of f64 (2.2e-16).

struct RoundedConstantPair {
  std::string reference, production;  // as a user wrote them where possible: "0.35355339059327373", "1/2.8284271247461903"
  double referenceValue = 0, productionValue = 0;
  double relative = 0;  // |reference - production| / |reference|
};

// 2u of the dtype: two roundings of one real are at most that far apart (relative).
double roundedConstantsTolerance(DType computedIn);

// The differing constant pairs when keys a and b differ only in numbers within `tolerance` of each
// other (relative); nullopt when they differ otherwise, or not at all.
std::optional<std::vector<RoundedConstantPair>> roundedConstantsOnly(const std::string &a, const std::string &b,
                                                                     double tolerance);

// The precision the code computes the two terms in: the finer of their floating dtypes (the
// strictest tolerance when they differ), F64 when neither is floating.
DType constantsDType(sem::TermPtr reference, sem::TermPtr production);

// Where the code writes `value` (or its reciprocal) as a scalar argument, in the cone of `v`:
// "file:line", or "" when no node there does (a constant the normal form computed from several).
std::string constantLocation(const Value *v, double value);
// The line of the one scalar constant `side` writes that `other` writes nowhere (0.1070322243
// where the reference multiplies 0.79788456 by 0.044715 and 3), or "" when there is not exactly one.
std::string constantWrittenOnlyBy(const Value *side, const Value *other);

// Each pair as a site of level rounded (Note [Equivalence up to rounding]): computed in `dtype`, at
// the line where production writes its constant (else the reference its own), in the cones of the
// outputs `reference` and `production`.
std::vector<Rounding> roundingSites(const std::vector<RoundedConstantPair> &pairs, DType dtype, const Value *reference,
                                    const Value *production);


}  // namespace torchtv
