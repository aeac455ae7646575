// The real-level normal form of scalar terms (Note [Real normal form]).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "src/sem/assumption.h"
#include "src/sem/index_range.h"
#include "src/sem/term.h"

namespace torchtv::sem {

// Note [Real normal form]
// A term is mapped to a polynomial with exact rational coefficients over atoms:
// tensor reads, index conditions, indicators of comparisons, uninterpreted
// functions of normalized arguments, powers of non-monomial bases, and sums
// over a bound index whose body is a single monomial of factors that depend on
// the binder. Every step is an identity over the reals:
//   - ring laws (expand products, collect like monomials);
//   - sum linearity: sum_k (c*A*B(k) + C(k)) = c*A*sum_k B(k) + sum_k C(k) when A
//     does not depend on k; sum_k c = extent * c; bound variables renamed
//     canonically (alpha-equivalence);
//   - a/b = a * b^-1; sqrt(x) = x^(1/2); rsqrt(x) = x^(-1/2); x^a * x^b = x^(a+b):
//     merging exponents is valid only for x != 0 (integers) or x > 0 (fractions);
//     unless x is known positive the merge is recorded as an assumption;
//   - select(c, a, b) = c*a + (1-c)*b, not c = 1 - c, c and d = c*d, c or d =
//     c + d - c*d, c^n = c for 0/1 indicators (over the reals there is no NaN);
//   - comparisons are indicators of (a - b) < 0, <= 0, == 0, scaled to a
//     canonical sign (a positive scale does not change a sign test);
//   - masked -inf (Note [Masked -inf]): exp(select(c, -inf, a) - b) =
//     (1 - c) * exp(a - b) for a real b, and a max over such elements is an
//     atom of (c, a), real when some element is not masked (an assumption);
//     -inf anywhere else has no real value (Unsupported);
//   - axioms, each a real identity: exp(a + b) = exp(a) * exp(b) and
//     exp(c*a) = exp(a)^c (exp is positive); log(exp(a)) = a, exp(c*log(a)) =
//     a^c for a known positive, and
//     log(x*y) = log(x) + log(y) for factors known positive (exp, and a sum
//     of positive terms over a non-empty concrete range), exp(c*log P) = P^c
//     for a sum P of positive terms; exp2, log2 and pow through exp, log and
//     the positive atom log 2, an integer power of a constant exactly (Note
//     [Powers and logarithms of other bases] in normal_form.cpp);
//     [x == k1] * [x == k2] = 0 for constants k1 != k2 (Note [Exclusive
//     indicators]); sigmoid, silu and
//     gelu (both approximations) are their formulas (Note [Derived operations]
//     in src/sem/derived.h: sigmoid(x) = (1 + exp(-x))^-1, silu(x) = x *
//     sigmoid(x), gelu(x) = x/2 * (1 + erf(x * c)) with c the double nearest
//     1/sqrt(2) that PyTorch uses, gelu(x, tanh) = x/2 * (1 + tanh(b * (x +
//     k * x^3))) with PyTorch's doubles b and k), so the real semantics of
//     each is its formula with PyTorch's constants.
// Integer terms are polynomials only through +, -, * of one dtype (equal
// integer polynomials are equal modulo 2^n); comparisons of integer constants
// the dtype holds are decided; anything else integral is an opaque atom
// identified by its term. Two terms with the same normal form key
// are equal over the reals at every index, for any sizes of the dims, under the
// recorded assumptions.
// Note [Masked -inf]
// Causal attention writes masked_fill(s, mask, -inf) before a softmax: the
// masked elements have no real value, yet exp sends them to exactly 0. The
// normal form reads select(c, -inf, a) in the two places a softmax (or
// logsumexp) uses it, each an identity over the extended reals:
//   exp(select(c, -inf, a) - b) = (1 - c) * exp(a - b)   (exp(-inf) = 0, b real)
//   max_k select(c_k, -inf, a_k) = max of a_k over the k with c_k false,
// an atom of (c, a), real only when some element is not masked: recorded as an
// assumption (an all-masked row is NaN in IEEE on both sides, or on one).
// A real added to a masked element, or subtracted from it, leaves it masked
// (s + where(keep, 0, -inf): torch's decomposed sdpa adds its mask), and a
// row's test for an element that is not -inf, any(x != -inf), is 1 under the
// same assumption (Note [Rows with some element kept] in normal_form.cpp).
// The constant -inf is select(true, -inf, a): masked everywhere, so exp of it
// (plus a real) is 0; a select whose condition a concrete index decides is
// that constant, as per element (Note [Normal forms element by element]) a
// causal mask is. A max or a row test over elements that are all -inf is not
// read under the assumption, which no input would satisfy.
// Everywhere else -inf stays Unsupported, so x - x = 0 never hides -inf - -inf.
// Note [Indicators that cover a range]
// Where index tensors are assumed in range (`inRange`, by slot: Note [Terms
// with indices in range] in src/sem/index_ranges.h), a value v of such a
// tensor equals exactly one point of its range, so the indicators [v == k]
// for every k of the range sum to 1: monomials c * M * [v == k] with the same
// c and M, one for each point k, are the one monomial c * M. An identity for
// every in-range v (the range's other accepted points, alsoDefined, count as
// points of it: at such a point no [v == k] of [0, bound) holds). Written out
// element by element, autograd's log-softmax backward multiplies the softmax by
// the sum of the one-hot row of a label-smoothed nll_loss's gradient, K
// monomials of [t == k]; Megatron's hand-written gradient has that sum's value
// once. Applied to every term's form, so sums under a power or a log are
// covered too.
class NormalForm {
public:
  // `inRange` (kept by the caller, null for none): Note [Indicators that cover a range].
  explicit NormalForm(TermContext &tc, const IndexRanges *inRange = nullptr);
  ~NormalForm();

  // Canonical key of t's normal form; throws Unsupported when the form grows
  // past a size limit or meets something it cannot express.
  std::string key(TermPtr t);
  // What the normal forms computed so far assume (Note [Assumptions as data]).
  const Assumptions &assumptions() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The exact value of a finite double as "numerator/denominator".
std::string exactRational(double v);

}  // namespace torchtv::sem
