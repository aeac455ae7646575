// Constants rounded from the same real (issue 18, item 3): Note [Rounded constants].
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace torchtv {

// Note [Rounded constants]
// `q * (1 / math.sqrt(8))` and `q / math.sqrt(8)` are equal over the reals only if the doubles
// 0.35355339059327373 and 2.8284271247461903 were exact reciprocals, which they are not: the
// real normal forms (exact rationals) differ in one coefficient, by about one rounding. Such a
// pair is no counterexample a user can act on, and no proof either. When two normal-form keys
// differ only in numbers, each pair within kRoundedConstantsTolerance of each other (relative),
// the prover says so ("equal up to the rounding of constants ..."); with --assume-rounded-constants
// it proves the outputs equal at level real under the assumption that each such pair stands for
// one real, reported as an assumption of its own (never silently, and never in the proof cache).
// The keys are compared number by number in order, so only forms of the same shape qualify; a
// planted 1e-6 relative change is far outside the tolerance.
constexpr double kRoundedConstantsTolerance = 1e-14;

struct RoundedConstantPair {
  std::string reference, production;  // as a user wrote them where possible: "0.35355339059327373", "1/2.8284271247461903"
};

// The differing constant pairs when keys a and b differ only in numbers close to each other;
// nullopt when they differ otherwise, or not at all.
std::optional<std::vector<RoundedConstantPair>> roundedConstantsOnly(const std::string &a, const std::string &b);

// "equal up to the rounding of constants 0.35355339059327373 and 1/2.8284271247461903, ...".
std::string describeRoundedConstants(const std::vector<RoundedConstantPair> &pairs);

}  // namespace torchtv
