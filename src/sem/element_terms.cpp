#include "src/sem/element_terms.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <unordered_map>
#include <vector>

#include "src/sem/index_ranges.h"
#include "src/sem/normal_form.h"

namespace torchtv::sem {

namespace {

// Rebuilds terms of `from` in `to` (whose variable table is a copy of
// from's) with index variables bound to constants, sums over short concrete
// ranges written out (Note [Normal forms element by element]).
class Instantiator {
public:
  // `readAs`: a read's replacement (its index bound), or null to keep the read.
  using ReadHook = std::function<TermPtr(int slot, const std::vector<IndexExpr> &index)>;
  Instantiator(TermContext &to, int64_t maxUnroll, ReadHook readAs = nullptr)
      : to_(to), maxUnroll_(maxUnroll), readAs_(std::move(readAs)) {}

  TermPtr at(TermPtr t, const std::map<int, int64_t> &env) {
    std::string key = std::to_string(t->id);
    for (int v : t->freeVars) {
      auto it = env.find(v);
      key += it == env.end() ? ",*" : "," + std::to_string(it->second);
    }
    auto hit = memo_.find(key);
    if (hit != memo_.end()) return hit->second;
    TermPtr r = build(t, env);
    memo_.emplace(std::move(key), r);
    return r;
  }

private:
  IndexExpr bind(IndexExpr e, const std::map<int, int64_t> &env) {
    std::vector<int> vs;
    e.collectVars(vs);
    for (int v : vs) {
      auto it = env.find(v);
      if (it != env.end()) e = e.substitute(v, IndexExpr::constant(it->second), to_.vars);
    }
    return e;
  }

  // Integer arithmetic, comparisons and logic of constants, evaluated: an element's coordinates
  // make the position tests of an advanced index (flat offsets, negative wrap) constant, and a
  // select whose test is a constant is one of its arms. Floating arithmetic is left to the normal
  // form (exact rationals); a floating comparison of finite constants is exact.
  TermPtr foldConstants(TOp op, const std::vector<TermPtr> &args, DType dtype) {
    if (args.empty()) return nullptr;
    if (args.size() == 2 && !isFloating(dtype))  // one constant operand: and(false, x) = false, x - 0 = x, ...
      for (int i : {0, 1}) {
        TermPtr c = args[i], x = args[1 - i];
        if (c->op != TOp::Const || x->op == TOp::Const) continue;
        if (op == TOp::And && c->dtype == DType::Bool) return c->inum ? x : c;
        if (op == TOp::Or && c->dtype == DType::Bool) return c->inum ? c : x;
        if ((op == TOp::Add || (op == TOp::Sub && i == 1)) && c->inum == 0) return x;
        if (op == TOp::Mul && c->inum == 1) return x;
      }
    if (!std::all_of(args.begin(), args.end(), [](TermPtr a) { return a->op == TOp::Const; })) return nullptr;
    bool floating = isFloating(args[0]->dtype);
    if (floating && !std::all_of(args.begin(), args.end(), [](TermPtr a) { return std::isfinite(a->num); }))
      return nullptr;
    auto integer = [&](int i) { return args[i]->inum; };
    if (args.size() == 2)
      if (auto r = floating ? compareWith(op, args[0]->num, args[1]->num) : compareWith(op, integer(0), integer(1)))
        return to_.boolConstant(*r);
    if (floating || ((op == TOp::And || op == TOp::Or || op == TOp::Xor || op == TOp::Not) && args[0]->dtype != DType::Bool))
      return nullptr;  // logic on bools only (integer bit operations have no term)
    switch (op) {
    case TOp::And: return to_.intConstant(integer(0) && integer(1), dtype);
    case TOp::Or: return to_.intConstant(integer(0) || integer(1), dtype);
    case TOp::Xor: return to_.intConstant((integer(0) != 0) != (integer(1) != 0), dtype);
    case TOp::Not: return to_.intConstant(!integer(0), dtype);
    case TOp::Add: return to_.intConstant(static_cast<int64_t>(static_cast<uint64_t>(integer(0)) + static_cast<uint64_t>(integer(1))), dtype);
    case TOp::Sub: return to_.intConstant(static_cast<int64_t>(static_cast<uint64_t>(integer(0)) - static_cast<uint64_t>(integer(1))), dtype);
    case TOp::Mul: return to_.intConstant(static_cast<int64_t>(static_cast<uint64_t>(integer(0)) * static_cast<uint64_t>(integer(1))), dtype);
    case TOp::Neg: return to_.intConstant(static_cast<int64_t>(0 - static_cast<uint64_t>(integer(0))), dtype);
    default: return nullptr;
    }
  }

  TermPtr build(TermPtr t, const std::map<int, int64_t> &env) {
    switch (t->op) {
    case TOp::Const:
      return isFloating(t->dtype) ? to_.constant(t->num, t->dtype) : to_.intConstant(t->inum, t->dtype);
    case TOp::Read: {
      std::vector<IndexExpr> idx;
      for (const IndexExpr &e : t->index) idx.push_back(bind(e, env));
      if (readAs_)
        if (TermPtr r = readAs_(t->slot, idx)) return r;
      return to_.read(t->slot, std::move(idx), t->dtype);
    }
    case TOp::IndexCmp:
      return to_.indexCmp(static_cast<IndexCmpKind>(t->inum), bind(t->index[0], env), bind(t->index[1], env));
    case TOp::IndexValue:
      return to_.indexValue(bind(t->index[0], env), t->dtype);
    default:
      break;
    }
    if (isReduction(t->op)) {
      bool unroll = (t->op == TOp::Sum || t->op == TOp::Pick) && t->extent.isConcrete() && t->extent.size() > 0 &&
                    t->extent.size() <= maxUnroll_;
      if (!unroll) return to_.reduce(t->op, t->binder, at(t->args[0], env), t->dtype, t->origin);
      std::map<int, int64_t> inner = env;
      TermPtr acc = nullptr;
      for (int64_t k = 0; k < t->extent.size(); ++k) {
        inner[t->binder] = k;
        TermPtr summand = at(t->args[0], inner);
        acc = acc ? to_.make(TOp::Add, {acc, summand}, t->dtype) : summand;
      }
      return acc;
    }
    std::vector<TermPtr> args;
    for (TermPtr a : t->args) args.push_back(at(a, env));
    if (TermPtr folded = foldConstants(t->op, args, t->dtype)) return folded;
    if (t->op == TOp::Select) return to_.select(args[0], args[1], args[2]);
    if (t->op == TOp::Cast) return to_.cast(args[0], t->dtype);
    return to_.make(t->op, std::move(args), t->dtype, t->num);
  }

  TermContext &to_;
  int64_t maxUnroll_;
  ReadHook readAs_;
  std::unordered_map<std::string, TermPtr> memo_;
};

void collectReads(TermPtr t, std::set<int> &slots, std::set<int> &seen) {
  if (!seen.insert(t->id).second) return;
  if (t->op == TOp::Read) slots.insert(t->slot);
  for (TermPtr a : t->args) collectReads(a, slots, seen);
}

std::set<int> readsOf(TermPtr t) {
  std::set<int> slots, seen;
  collectReads(t, slots, seen);
  return slots;
}

// Rounds of Note [Frontier reads on one side]: each expansion may read further tensors.
constexpr int kAlignRounds = 6;

// Note [Frontier reads on one side]: a and b (closed terms of `closed`) with the tensors only
// one of them reads as their definitions, index maps first, until both read the same ones.
// Whether anything was expanded.
bool alignReads(TermContext &closed, TermPtr &a, TermPtr &b, const ExpandRead &expand, int64_t maxUnroll) {
  bool any = false;
  for (int round = 0; round < kAlignRounds; ++round) {
    std::set<int> ra = readsOf(a), rb = readsOf(b), oneSided;
    std::set_symmetric_difference(ra.begin(), ra.end(), rb.begin(), rb.end(),
                                  std::inserter(oneSided, oneSided.end()));
    if (oneSided.empty()) break;
    bool changed = false;
    for (bool indexMapsOnly : {true, false}) {
      std::unique_ptr<Instantiator> inst;
      inst = std::make_unique<Instantiator>(closed, maxUnroll, [&](int slot, const std::vector<IndexExpr> &idx) -> TermPtr {
        if (!oneSided.count(slot)) return nullptr;
        TermPtr def = expand(closed, slot, idx, indexMapsOnly);
        return def ? inst->at(def, {}) : nullptr;
      });
      TermPtr na = inst->at(a, {}), nb = inst->at(b, {});
      changed = na != a || nb != b;
      a = na;
      b = nb;
      if (changed) break;
    }
    if (!changed) break;
    any = true;
  }
  return any;
}

std::string coordinates(const std::vector<int64_t> &c) {
  std::string s = "[";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? "," : "") + std::to_string(c[i]);
  return s + "]";
}

}  // namespace

ElementComparison compareElementByElement(TermContext &tc, TermPtr a, TermPtr b, const ElementLimits &limits,
                                          const KeysMatch &alsoMatch, const IndexRanges *inRange,
                                          const ExpandRead &expand) {
  std::vector<int> coords = a->freeVars;
  coords.insert(coords.end(), b->freeVars.begin(), b->freeVars.end());
  std::sort(coords.begin(), coords.end());
  coords.erase(std::unique(coords.begin(), coords.end()), coords.end());
  int64_t elements = 1;
  std::vector<int64_t> extents;
  for (int v : coords) {
    const Dim &d = tc.vars.extent(v);
    if (!d.isConcrete()) throw Unsupported("a dim of symbolic size " + d.str());
    extents.push_back(d.size());
    elements *= d.size();
    if (elements > limits.maxElements)
      throw Unsupported("more than " + std::to_string(limits.maxElements) + " elements to compare one by one", Gap::TooLarge);
  }
  ElementComparison out;
  if (elements == 0) {
    out.equal = true;
    return out;
  }
  TermContext closed;  // the closed terms, apart from the region's own budget
  closed.vars = tc.vars;
  closed.slotName = tc.slotName;
  Instantiator inst(closed, limits.maxUnroll);
  std::vector<int64_t> at(coords.size(), 0);
  for (int64_t n = 0; n < elements; ++n) {
    if (std::chrono::steady_clock::now() > limits.deadline) throw Unsupported("the time limit passed", Gap::TimeLimit);
    std::map<int, int64_t> env;
    for (size_t i = 0; i < coords.size(); ++i) env[coords[i]] = at[i];
    NormalForm nf(closed, inRange);
    TermPtr ia = inst.at(a, env), ib = inst.at(b, env);
    if (inRange) ia = assumeIndexRanges(closed, ia, *inRange, true), ib = assumeIndexRanges(closed, ib, *inRange, true);
    std::string keyA = nf.key(ia), keyB = nf.key(ib);
    auto differ = [&] { return keyA != keyB && !(alsoMatch && alsoMatch(keyA, keyB)); };
    bool differs = differ();
    if (differs && expand && alignReads(closed, ia, ib, expand, limits.maxUnroll)) {
      if (inRange) ia = assumeIndexRanges(closed, ia, *inRange, true), ib = assumeIndexRanges(closed, ib, *inRange, true);
      keyA = nf.key(ia);
      keyB = nf.key(ib);
      differs = differ();
      out.expanded = out.expanded || !differs;
    }
    if (differs) {
      out.differingElement = coordinates(at);
      out.formA = std::move(keyA);
      out.formB = std::move(keyB);
      return out;
    }
    out.assumptions.insert(nf.assumptions().begin(), nf.assumptions().end());
    for (size_t i = coords.size(); i-- > 0;) {  // the next element, last coordinate fastest
      if (++at[i] < extents[i]) break;
      at[i] = 0;
    }
  }
  out.equal = true;
  return out;
}

}  // namespace torchtv::sem
