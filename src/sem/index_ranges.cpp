#include "src/sem/index_ranges.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torchtv::sem {

namespace {

class InRange {
public:
  InRange(TermContext &tc, const IndexRanges &bounds, bool reals) : tc_(tc), bounds_(bounds), reals_(reals) {}

  TermPtr rewrite(TermPtr t) {
    auto hit = memo_.find(t->id);
    if (hit != memo_.end()) return hit->second;
    TermPtr r = rewriteUncached(t);
    memo_.emplace(t->id, r);
    return r;
  }

private:
  // The range of v: a read of a bounded tensor, maybe widened to another integer dtype.
  const IndexRange *rangeOf(TermPtr v) const {
    while (v->op == TOp::Cast && isIntegral(v->dtype) && isIntegral(v->args[0]->dtype) &&
           dtypeBits(v->dtype) >= dtypeBits(v->args[0]->dtype))
      v = v->args[0];
    if (v->op != TOp::Read || !isIntegral(v->dtype)) return nullptr;
    auto it = bounds_.find(v->slot);
    return it == bounds_.end() ? nullptr : &it->second;
  }

  // cond as (v, c) when it is v == c for a bounded v and an integer constant c.
  std::optional<std::pair<TermPtr, int64_t>> test(TermPtr cond) const {
    if (cond->op != TOp::Eq) return std::nullopt;
    for (int i : {0, 1}) {
      TermPtr v = cond->args[i], c = cond->args[1 - i];
      if (c->op == TOp::Const && isIntegral(c->dtype) && rangeOf(v)) return std::make_pair(v, c->inum);
    }
    return std::nullopt;
  }

  // Note [Terms with indices in range]: a chain of tests of one v whose constants cover [0, bound)
  // ends in the last arm.
  TermPtr collapse(TermPtr s) {
    auto first = test(s->args[0]);
    if (!first) return s;
    TermPtr v = first->first;
    std::vector<TermPtr> arms{s};
    std::set<int64_t> covered{first->second};
    for (TermPtr at = s->args[2]; at->op == TOp::Select;) {
      auto t = test(at->args[0]);
      if (!t || t->first != v) break;
      arms.push_back(at);
      covered.insert(t->second);
      at = at->args[2];
    }
    const IndexRange &range = *rangeOf(v);
    for (int64_t j = 0; j < range.bound; ++j)
      if (!covered.count(j)) return s;
    for (int64_t p : range.alsoDefined)
      if (!covered.count(p)) return s;
    TermPtr r = arms.back()->args[1];
    for (size_t i = arms.size() - 1; i-- > 0;) r = tc_.select(arms[i]->args[0], arms[i]->args[1], r);
    return r;
  }

  // Note [Terms with indices in range]: v < c, v <= c, v > c, v >= c for a bounded v and an
  // integer constant c, decided when every v in [0, bound) gives the same answer (a read's
  // range test, as isHot writes it).
  std::optional<bool> order(TOp op, TermPtr a, TermPtr b) const {
    bool flipped = false;
    if (b->op != TOp::Const) {
      std::swap(a, b);
      flipped = true;
    }
    const IndexRange *range = rangeOf(a);
    if (b->op != TOp::Const || !isIntegral(b->dtype) || !range || range->bound <= 0) return std::nullopt;
    if (flipped) op = op == TOp::Lt ? TOp::Gt : op == TOp::Le ? TOp::Ge : op == TOp::Gt ? TOp::Lt : TOp::Le;
    auto holds = [&](int64_t v) {
      int64_t c = b->inum;
      return op == TOp::Lt ? v < c : op == TOp::Le ? v <= c : op == TOp::Gt ? v > c : v >= c;
    };
    bool low = holds(0), high = holds(range->bound - 1);  // each test is monotone in v
    if (low != high) return std::nullopt;
    for (int64_t p : range->alsoDefined)
      if (holds(p) != low) return std::nullopt;
    return low;
  }

  // Note [Terms with indices in range]: sum_j select(v == value(j), a, 0) = a for a bounded v
  // whose bound is at most the sum's extent, and v and a independent of j: exactly one summand
  // is a. Exact over the reals; in IEEE for a pick (its zeros are -0, Note [Reads at
  // data-dependent positions]) or an integer sum, not for a float sum from +0 (a = -0 gives +0).
  std::optional<TermPtr> oneHotRow(TermPtr t, TermPtr body) const {
    if (body->op != TOp::Select || !t->extent.isConcrete()) return std::nullopt;
    TermPtr cond = body->args[0], a = body->args[1], zero = body->args[2];
    if (cond->op != TOp::Eq || zero->op != TOp::Const || dependsOn(a, t->binder)) return std::nullopt;
    bool exact = reals_ || t->op == TOp::Pick || (isIntegral(t->dtype) && t->dtype != DType::U64);
    if (!exact || (isFloating(zero->dtype) ? zero->num != 0 : zero->inum != 0)) return std::nullopt;
    for (int i : {0, 1}) {
      TermPtr v = cond->args[i], position = cond->args[1 - i];
      const IndexRange *range = rangeOf(v);
      int64_t extent = t->extent.size();
      if (!range || range->bound > extent || dependsOn(v, t->binder)) continue;
      // value(j) must not wrap within the extent (an i8 compare would meet v at j and j + 256).
      bool injective = dtypeBits(position->dtype) >= 64 || extent <= (int64_t(1) << (dtypeBits(position->dtype) - 1));
      if (position->op != TOp::IndexValue || position->index[0].asVar() != t->binder || !injective) continue;
      // At a point the reference also accepts, outside the extent, no summand is a.
      TermPtr r = a;
      for (int64_t p : range->alsoDefined) {
        if (p >= 0 && p < extent) return std::nullopt;
        r = tc_.select(tc_.make(TOp::Eq, {v, tc_.intConstant(p, v->dtype)}, v->dtype), zero, r);
      }
      return r;
    }
    return std::nullopt;
  }
  static bool dependsOn(TermPtr x, int var) {
    return std::binary_search(x->freeVars.begin(), x->freeVars.end(), var);
  }

  TermPtr rewriteUncached(TermPtr t) {
    if (t->args.empty()) return t;
    std::vector<TermPtr> args;
    for (TermPtr a : t->args) args.push_back(rewrite(a));
    switch (t->op) {
    case TOp::Eq: case TOp::Ne: {
      TermPtr cond = tc_.make(TOp::Eq, {args[0], args[1]}, args[0]->dtype);
      if (auto vc = test(cond); vc && !rangeOf(vc->first)->contains(vc->second))
        return tc_.boolConstant(t->op == TOp::Ne);
      return tc_.make(t->op, std::move(args), t->dtype, t->num);
    }
    case TOp::Lt: case TOp::Le: case TOp::Gt: case TOp::Ge:
      if (auto decided = order(t->op, args[0], args[1])) return tc_.boolConstant(*decided);
      break;
    case TOp::Select: {
      TermPtr s = tc_.select(args[0], args[1], args[2]);
      return s->op == TOp::Select ? collapse(s) : s;
    }
    case TOp::Cast: return tc_.cast(args[0], t->dtype);
    case TOp::And: case TOp::Or:  // what the rules above decide, passed on
      for (int i : {0, 1})
        if (args[i]->op == TOp::Const)
          return (args[i]->inum != 0) == (t->op == TOp::And) ? tc_.cast(args[1 - i], DType::Bool) : args[i];
      break;
    case TOp::Not:
      if (args[0]->op == TOp::Const) return tc_.boolConstant(args[0]->inum == 0);
      break;
    case TOp::Pick:
      if (auto a = oneHotRow(t, args[0])) return *a;
      break;
    case TOp::Sum:  // a count of what the rules above made constant
      if (auto a = oneHotRow(t, args[0])) return *a;
      // Floating: over the reals only (a float sum rounds). Integers: exact in
      // every order, modulo the dtype's width as intConstant wraps it.
      if (args[0]->op == TOp::Const && t->extent.isConcrete()) {
        if (reals_ && isFloating(t->dtype))
          return tc_.constant(args[0]->num * static_cast<double>(t->extent.size()), t->dtype);
        if (isIntegral(t->dtype) && t->dtype != DType::Bool && t->dtype != DType::U64)
          return tc_.intConstant(static_cast<int64_t>(static_cast<uint64_t>(args[0]->inum) *
                                                      static_cast<uint64_t>(t->extent.size())),
                                 t->dtype);
      }
      break;
    default: break;
    }
    if (isReduction(t->op)) return tc_.reduce(t->op, t->binder, args[0], t->dtype, t->origin);
    return tc_.make(t->op, std::move(args), t->dtype, t->num);
  }

  TermContext &tc_;
  const IndexRanges &bounds_;
  bool reals_;
  std::unordered_map<int, TermPtr> memo_;
};

}  // namespace

namespace {

// Peels neg, and mul or div by a constant, off t into `factor`, as long as the factor stays exact in
// double arithmetic (so that equal factors are equal reals).
TermPtr peelFactor(TermPtr t, double &factor) {
  while (isFloating(t->dtype)) {
    if (t->op == TOp::Neg) {
      factor = -factor;
      t = t->args[0];
      continue;
    }
    if (t->op != TOp::Mul && t->op != TOp::Div) break;
    int c = t->args[1]->op == TOp::Const ? 1 : t->op == TOp::Mul && t->args[0]->op == TOp::Const ? 0 : -1;
    if (c < 0) break;
    double k = t->args[c]->num, next = t->op == TOp::Mul ? factor * k : factor / k;
    bool exact = t->op == TOp::Mul ? std::fma(factor, k, -next) == 0 : k != 0 && std::fma(next, k, -factor) == 0;
    if (!exact || !std::isfinite(next) || next == 0) break;
    factor = next;
    t = t->args[1 - c];
  }
  return t;
}

}  // namespace

// Note [Sums compared by their summands]
std::optional<std::pair<TermPtr, TermPtr>> summandsToCompare(TermContext &tc, TermPtr a, TermPtr b) {
  double fa = 1, fb = 1;
  TermPtr sa = peelFactor(a, fa), sb = peelFactor(b, fb);
  if (sa->op != TOp::Sum || sb->op != TOp::Sum || !(sa->extent == sb->extent) || sa->dtype != sb->dtype) return std::nullopt;
  int k = tc.vars.fresh(sa->extent, "k");
  TermPtr ka = peelFactor(tc.substitute(sa->args[0], sa->binder, IndexExpr::var(k)), fa);
  TermPtr kb = peelFactor(tc.substitute(sb->args[0], sb->binder, IndexExpr::var(k)), fb);
  if (fa != fb) return std::nullopt;
  return std::make_pair(ka, kb);
}

TermPtr assumeIndexRanges(TermContext &tc, TermPtr t, const IndexRanges &bounds, bool reals) {
  if (bounds.empty()) return t;
  return InRange(tc, bounds, reals).rewrite(t);
}

}  // namespace torchtv::sem
