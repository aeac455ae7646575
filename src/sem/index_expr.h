// Index expressions: the integer side of the per-element encoding.
//
// Note [Index expressions]
// A tensor element is read at an index expression over index variables: the
// output's coordinates and the binders of reductions. Layout ops are exact
// maps between index expressions (permute swaps them, view/reshape goes
// through the flat offset with floor division and modulo, slice adds an
// offset, ...). An expression is kept as an affine combination of atoms
// (variables, or a floor division / modulo of an affine expression by a
// positive constant). Division and modulo are simplified only when the
// variables' ranges prove the simplification (e.g. (16*i + j) / 16 = i for
// 0 <= j < 16), so the simplified form is exact for every index in range.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/shape.h"

namespace torchtv::sem {

class IndexExpr;

// Index variables and their extents (a variable ranges over [0, extent)).
class VarTable {
public:
  int fresh(const Dim &extent, const std::string &hint);
  // The canonical binder of a sum of `height` nested sums over `extent`
  // (Note [Canonical binders]); `family` separates term and normal-form binders.
  int canonical(int family, int height, const Dim &extent);
  const Dim &extent(int var) const { return vars_.at(var).extent; }
  const std::string &name(int var) const { return vars_.at(var).name; }
  size_t size() const { return vars_.size(); }

private:
  struct Var {
    Dim extent;
    std::string name;
  };
  std::vector<Var> vars_;
  std::map<std::string, int> canonical_;
};

struct IndexAtom {
  enum class Kind { Var, Div, Mod } kind = Kind::Var;
  int var = -1;
  std::shared_ptr<const IndexExpr> arg;  // Div, Mod
  int64_t divisor = 1;                   // Div, Mod
  std::string key;
};

// sum(coeff * atom) + constant, atoms sorted by key.
class IndexExpr {
public:
  IndexExpr() = default;
  static IndexExpr constant(int64_t c);
  static IndexExpr var(int v);

  const std::vector<std::pair<std::shared_ptr<const IndexAtom>, int64_t>> &terms() const { return terms_; }
  int64_t constantPart() const { return constant_; }
  bool isConstant() const { return terms_.empty(); }
  std::optional<int> asVar() const;
  const std::string &key() const { return key_; }
  bool mentions(int var) const;
  void collectVars(std::vector<int> &out) const;

  IndexExpr operator+(const IndexExpr &o) const;
  IndexExpr operator*(int64_t c) const;
  IndexExpr operator+(int64_t c) const { return *this + constant(c); }

  // Floor division and modulo by a positive constant, simplified with the ranges.
  IndexExpr floorDiv(int64_t k, const VarTable &vars) const;
  IndexExpr mod(int64_t k, const VarTable &vars) const;
  // Replaces variable `from` by `to` (simplifying again).
  IndexExpr substitute(int from, const IndexExpr &to, const VarTable &vars) const;

  // Inclusive bounds over the variables' ranges (nullopt: unbounded).
  std::pair<std::optional<int64_t>, std::optional<int64_t>> bounds(const VarTable &vars) const;
  std::string str(const VarTable &vars) const;

private:
  static IndexExpr fromAtom(std::shared_ptr<const IndexAtom> a, int64_t coeff);
  void finish();
  std::vector<std::pair<std::shared_ptr<const IndexAtom>, int64_t>> terms_;
  int64_t constant_ = 0;
  std::string key_ = "0";
};

}  // namespace torchtv::sem
