// Extended reals for level real (internal to src/smt).
//
// Note [Extended reals at level real]
// Level real reads every float as a real number. Code that writes -inf on
// purpose (masked_fill(~tril, -inf) before exp in Mamba-2's segment sum, a
// masked softmax) computes with values that are not real, and the answers at
// those elements are exact in IEEE: exp(-inf) = 0, -inf + x = -inf, max(-inf,
// x) = x, and a row masked everywhere is NaN through softmax (exp(-inf - -inf)).
// So when a query's terms hold a non-finite constant, each float value is
// encoded as a pair (kind, value): kind finite, +inf, -inf or NaN, and a real
// value that is 0 unless the kind is finite (so that equal pairs are equal
// values, and every NaN equals every NaN, as the verdicts define it).
//   - Graph inputs are finite: level real's inputs are reals (a difference that
//     needs an infinite input is not one level real sees: Note [Input domains]).
//     Non-finite values enter only through constants and propagate by IEEE 754's
//     rules: inf - inf, 0 * inf, inf / inf, NaN anywhere give NaN; inf times a
//     sign; x / inf = 0; comparisons with NaN are false (ne true); maximum,
//     minimum and the reductions max/min propagate NaN, as ATen's do; exp(-inf)
//     = 0, exp(inf) = inf, log(inf) = inf, log(-inf) = NaN, tanh and erf of
//     +-inf are +-1; sigmoid, silu and gelu through their formulas.
//   - On finite operands every operation is what level real already says (the
//     same real arithmetic and uninterpreted functions), so a query proven
//     without the pairs means the same with them. In particular overflow
//     (exp of a large real), division by zero and log of a non-positive real
//     stay outside the model, as everywhere at level real.
//   - Any other function of a non-finite operand (pow, floor, a conversion to an
//     integer, ...) is an unknown pair of its arguments: equal only to itself.
//     That only adds models, so it can cost a proof, never make one wrong.
// What is proven: the two terms are equal, as extended reals, at every index
// and for every finite value of the reads. Where not: (1) a reduction over
// more than kUnrollLimit elements is an unknown pair, so a row of 64 masked keys
// proves only through the normal form (Note [Masked -inf] in
// src/sem/normal_form.h, which assumes a kept key per row and says so); (2) a
// region's frontier values (values both graphs share, cut points) are reads
// too, so a frontier that holds -inf (a masked_fill both sides compute alike)
// is read as if it were real. What sees those rows is random refutation, which
// evaluates the whole graphs (Note [Confirming counterexamples]): `where(isinf(f),
// 0, f - f)` against `f - f` for a shared masked f is refuted there.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <z3++.h>

namespace torchtv::smt {

class ExtendedReals {
public:
  enum Kind { Finite = 0, PosInf = 1, NegInf = 2, NaN = 3 };

  explicit ExtendedReals(z3::context &c);

  const z3::sort &sort() const { return sort_; }
  // The fields of a pair, read through the pairs and ites it is built of (no projection of a
  // constructor left for Z3 to rewrite).
  z3::expr kind(const z3::expr &x) const { return field(x, 0); }
  z3::expr value(const z3::expr &x) const { return field(x, 1); }
  // The pair of a kind and a real value, the value zeroed unless finite.
  z3::expr make(const z3::expr &kind, const z3::expr &value) const;
  z3::expr finite(const z3::expr &real) const;
  z3::expr of(Kind k) const;
  // A double (non-finite ones included).
  z3::expr constant(double v) const;

  z3::expr isFinite(const z3::expr &x) const { return kind(x) == c_.real_val(Finite); }
  z3::expr isNaN(const z3::expr &x) const { return kind(x) == c_.real_val(NaN); }
  z3::expr isInf(const z3::expr &x) const { return kind(x) == c_.real_val(PosInf) || kind(x) == c_.real_val(NegInf); }

  z3::expr neg(const z3::expr &a) const;
  z3::expr add(const z3::expr &a, const z3::expr &b) const;
  z3::expr sub(const z3::expr &a, const z3::expr &b) const { return add(a, neg(b)); }
  z3::expr mul(const z3::expr &a, const z3::expr &b) const;
  z3::expr div(const z3::expr &a, const z3::expr &b) const;
  z3::expr abs(const z3::expr &a) const;
  // ATen's maximum/minimum: NaN if either is NaN.
  z3::expr maximum(const z3::expr &a, const z3::expr &b) const;
  z3::expr minimum(const z3::expr &a, const z3::expr &b) const;
  // IEEE comparisons (false with a NaN operand).
  z3::expr lt(const z3::expr &a, const z3::expr &b) const;
  z3::expr le(const z3::expr &a, const z3::expr &b) const;
  z3::expr eq(const z3::expr &a, const z3::expr &b) const;
  // A function of one real argument (`onFinite`, what level real says) at
  // non-finite arguments: `atPosInf` and `atNegInf` its limits, NaN at NaN.
  z3::expr unary(const z3::expr &a, const z3::expr &onFinite, const z3::expr &atPosInf,
                 const z3::expr &atNegInf) const;
  // A function known only at finite arguments (`onFinite`): elsewhere an
  // unknown pair of the arguments, named `name`.
  z3::expr opaqueOutsideReals(const std::string &name, const std::vector<z3::expr> &args,
                              const z3::expr &onFinite) const;

private:
  z3::expr field(const z3::expr &x, unsigned i) const;
  // The sign of a non-NaN value as -1, 0 or 1 (a real).
  z3::expr sign(const z3::expr &x) const;
  // -inf < finite < +inf, then the value: an order key for non-NaN values.
  z3::expr rank(const z3::expr &x) const;

  z3::context &c_;
  z3::func_decl_vector projections_;
  z3::func_decl pair_;
  z3::sort sort_;
  z3::func_decl kindOf_, valueOf_;
  // By (ast id, field): the pair read, kept alive so that its id is not reused, and the field.
  mutable std::map<std::pair<unsigned, unsigned>, std::pair<z3::expr, z3::expr>> fields_;
};

}  // namespace torchtv::smt
