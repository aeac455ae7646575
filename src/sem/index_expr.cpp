#include "src/sem/index_expr.h"

#include <algorithm>

namespace torchtv::sem {

namespace {

int64_t floorDivInt(int64_t a, int64_t k) {
  int64_t q = a / k;
  return (a % k != 0 && ((a < 0) != (k < 0))) ? q - 1 : q;
}
int64_t floorModInt(int64_t a, int64_t k) { return a - floorDivInt(a, k) * k; }

using Bounds = std::pair<std::optional<int64_t>, std::optional<int64_t>>;

Bounds atomBounds(const IndexAtom &a, const VarTable &vars) {
  switch (a.kind) {
  case IndexAtom::Kind::Var: {
    const Dim &d = vars.extent(a.var);
    if (d.isConcrete()) return {0, d.size() - 1};
    return {0, std::nullopt};
  }
  case IndexAtom::Kind::Mod:
    return {0, a.divisor - 1};
  case IndexAtom::Kind::Div: {
    auto [lo, hi] = a.arg->bounds(vars);
    Bounds b;
    if (lo) b.first = floorDivInt(*lo, a.divisor);
    if (hi) b.second = floorDivInt(*hi, a.divisor);
    return b;
  }
  }
  return {};
}

}  // namespace

int VarTable::fresh(const Dim &extent, const std::string &hint) {
  vars_.push_back(Var{extent, hint + std::to_string(vars_.size())});
  return static_cast<int>(vars_.size()) - 1;
}

// Note [Canonical binders]
// Two sums that differ only in the name of their bound variable must get the
// same representation (alpha-equivalence), or identical reductions on the two
// sides would not be recognized. A sum's binder is renamed to the variable
// canonical(family, height, extent), where height is 1 + the largest height of
// the sums nested in its body. A nested sum has a smaller height, and every
// free variable of the body belongs to an enclosing sum (greater height, not
// yet renamed) or to the output index, so the canonical name never captures.
int VarTable::canonical(int family, int height, const Dim &extent) {
  std::string key = std::to_string(family) + "/" + std::to_string(height) + "/" + extent.str();
  auto it = canonical_.find(key);
  if (it != canonical_.end()) return it->second;
  std::string prefix = family == 0 ? "k" : "n";
  vars_.push_back(Var{extent, prefix + std::to_string(height) + "_" + extent.str()});
  int id = static_cast<int>(vars_.size()) - 1;
  canonical_[key] = id;
  return id;
}

IndexExpr IndexExpr::constant(int64_t c) {
  IndexExpr e;
  e.constant_ = c;
  e.finish();
  return e;
}

IndexExpr IndexExpr::var(int v) {
  auto a = std::make_shared<IndexAtom>();
  a->kind = IndexAtom::Kind::Var;
  a->var = v;
  a->key = "v" + std::to_string(v);
  return fromAtom(a, 1);
}

IndexExpr IndexExpr::fromAtom(std::shared_ptr<const IndexAtom> a, int64_t coeff) {
  IndexExpr e;
  if (coeff != 0) e.terms_.push_back({std::move(a), coeff});
  e.finish();
  return e;
}

void IndexExpr::finish() {
  std::sort(terms_.begin(), terms_.end(), [](const auto &x, const auto &y) { return x.first->key < y.first->key; });
  std::vector<std::pair<std::shared_ptr<const IndexAtom>, int64_t>> merged;
  for (auto &t : terms_) {
    if (!merged.empty() && merged.back().first->key == t.first->key) merged.back().second += t.second;
    else merged.push_back(t);
  }
  terms_.clear();
  for (auto &t : merged)
    if (t.second != 0) terms_.push_back(t);
  key_.clear();
  for (auto &[a, c] : terms_) key_ += std::to_string(c) + "*" + a->key + "+";
  key_ += std::to_string(constant_);
}

std::optional<int> IndexExpr::asVar() const {
  if (constant_ == 0 && terms_.size() == 1 && terms_[0].second == 1 && terms_[0].first->kind == IndexAtom::Kind::Var)
    return terms_[0].first->var;
  return std::nullopt;
}

bool IndexExpr::mentions(int v) const {
  for (auto &[a, c] : terms_) {
    if (a->kind == IndexAtom::Kind::Var ? a->var == v : a->arg->mentions(v)) return true;
  }
  return false;
}

void IndexExpr::collectVars(std::vector<int> &out) const {
  for (auto &[a, c] : terms_) {
    if (a->kind == IndexAtom::Kind::Var) out.push_back(a->var);
    else a->arg->collectVars(out);
  }
}

IndexExpr IndexExpr::operator+(const IndexExpr &o) const {
  IndexExpr e = *this;
  e.terms_.insert(e.terms_.end(), o.terms_.begin(), o.terms_.end());
  e.constant_ += o.constant_;
  e.finish();
  return e;
}

IndexExpr IndexExpr::operator*(int64_t c) const {
  IndexExpr e;
  if (c == 0) return constant(0);
  for (auto &[a, k] : terms_) e.terms_.push_back({a, k * c});
  e.constant_ = constant_ * c;
  e.finish();
  return e;
}

std::pair<std::optional<int64_t>, std::optional<int64_t>> IndexExpr::bounds(const VarTable &vars) const {
  std::optional<int64_t> lo = constant_, hi = constant_;
  for (auto &[a, c] : terms_) {
    auto [alo, ahi] = atomBounds(*a, vars);
    std::optional<int64_t> tlo, thi;
    if (c > 0) {
      if (alo) tlo = *alo * c;
      if (ahi) thi = *ahi * c;
    } else {
      if (ahi) tlo = *ahi * c;
      if (alo) thi = *alo * c;
    }
    lo = lo && tlo ? std::optional<int64_t>(*lo + *tlo) : std::nullopt;
    hi = hi && thi ? std::optional<int64_t>(*hi + *thi) : std::nullopt;
  }
  return {lo, hi};
}


IndexExpr IndexExpr::floorDiv(int64_t k, const VarTable &vars) const {
  if (k == 1) return *this;
  IndexExpr q = constant(floorDivInt(constant_, k)), r = constant(floorModInt(constant_, k));
  for (auto &[a, c] : terms_) {
    q = q + fromAtom(a, floorDivInt(c, k));
    r = r + fromAtom(a, floorModInt(c, k));
  }
  auto [lo, hi] = r.bounds(vars);
  if (lo && hi && floorDivInt(*lo, k) == floorDivInt(*hi, k)) return q + floorDivInt(*lo, k);
  auto atom = std::make_shared<IndexAtom>();
  atom->kind = IndexAtom::Kind::Div;
  atom->arg = std::make_shared<IndexExpr>(r);
  atom->divisor = k;
  atom->key = "(" + r.key() + ")/" + std::to_string(k);
  return q + fromAtom(atom, 1);
}

IndexExpr IndexExpr::mod(int64_t k, const VarTable &vars) const {
  if (k == 1) return constant(0);
  IndexExpr r = constant(floorModInt(constant_, k));
  for (auto &[a, c] : terms_) r = r + fromAtom(a, floorModInt(c, k));
  auto [lo, hi] = r.bounds(vars);
  if (lo && hi && floorDivInt(*lo, k) == floorDivInt(*hi, k)) return r + (-floorDivInt(*lo, k) * k);
  auto atom = std::make_shared<IndexAtom>();
  atom->kind = IndexAtom::Kind::Mod;
  atom->arg = std::make_shared<IndexExpr>(r);
  atom->divisor = k;
  atom->key = "(" + r.key() + ")%" + std::to_string(k);
  return fromAtom(atom, 1);
}

// Note [Substitution in one pass]
// The substituted expression is the sum of each term's image: a variable
// other than `from` is itself (the same atom), `from` is `to`, a division or
// a modulo is simplified again over its substituted argument. The images'
// terms are collected and finished once (sorted by key, equal keys merged,
// zeros dropped), which is what adding them one at a time gives, without an
// expression, a sort and a key for every term of it. (This was a seventh of a
// 16-layer decide's instructions.)
IndexExpr IndexExpr::substitute(int from, const IndexExpr &to, const VarTable &vars) const {
  if (!mentions(from)) return *this;
  IndexExpr out;
  out.constant_ = constant_;
  auto addScaled = [&](const IndexExpr &image, int64_t c) {
    for (auto &[a, k] : image.terms_) out.terms_.push_back({a, k * c});
    out.constant_ += image.constant_ * c;
  };
  for (auto &[a, c] : terms_) {
    switch (a->kind) {
    case IndexAtom::Kind::Var:
      if (a->var == from) addScaled(to, c);
      else out.terms_.push_back({a, c});
      break;
    case IndexAtom::Kind::Div:
      addScaled(a->arg->substitute(from, to, vars).floorDiv(a->divisor, vars), c);
      break;
    case IndexAtom::Kind::Mod:
      addScaled(a->arg->substitute(from, to, vars).mod(a->divisor, vars), c);
      break;
    }
  }
  out.finish();
  return out;
}

std::string IndexExpr::str(const VarTable &vars) const {
  std::string s;
  for (auto &[a, c] : terms_) {
    if (!s.empty()) s += "+";
    if (c != 1) s += std::to_string(c) + "*";
    switch (a->kind) {
    case IndexAtom::Kind::Var: s += vars.name(a->var); break;
    case IndexAtom::Kind::Div: s += "(" + a->arg->str(vars) + ")/" + std::to_string(a->divisor); break;
    case IndexAtom::Kind::Mod: s += "(" + a->arg->str(vars) + ")%" + std::to_string(a->divisor); break;
    }
  }
  if (constant_ != 0 || s.empty()) s += (s.empty() ? "" : "+") + std::to_string(constant_);
  return s;
}

}  // namespace torchtv::sem
