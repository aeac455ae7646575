#include "src/sem/term.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <unordered_set>

#include "ir/attribute.h"

namespace torchtv::sem {

namespace {

// See Note [Term budget].
constexpr size_t kMaxTerms = 300000;

double roundGeneric(double v, int mantBits, int minExp, int maxExp) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return v;
  int e = std::ilogb(v);
  if (e < minExp) e = minExp;
  double ulp = std::ldexp(1.0, e - mantBits);
  double r = std::nearbyint(v / ulp) * ulp;
  if (std::fabs(r) >= std::ldexp(1.0, maxExp + 1)) return std::copysign(INFINITY, v);
  return r;
}

}  // namespace

double roundToDType(double v, DType dtype) {
  switch (dtype) {
  case DType::F64: return v;
  case DType::F32: return static_cast<double>(static_cast<float>(v));
  // PyTorch computes half types in float and rounds the float result.
  case DType::F16: return roundGeneric(static_cast<float>(v), 10, -14, 15);
  case DType::BF16: return roundGeneric(static_cast<float>(v), 7, -126, 127);
  default: return v;
  }
}

int64_t wrapToDType(int64_t v, DType dtype) {
  auto u = static_cast<uint64_t>(v);
  switch (dtype) {
  case DType::Bool: return v != 0 ? 1 : 0;
  case DType::U8: return static_cast<int64_t>(static_cast<uint8_t>(u));
  case DType::I8: return static_cast<int64_t>(static_cast<int8_t>(static_cast<uint8_t>(u)));
  case DType::I16: return static_cast<int64_t>(static_cast<int16_t>(static_cast<uint16_t>(u)));
  case DType::I32: return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(u)));
  default: return v;
  }
}

bool anySubterm(TermPtr a, TermPtr b, const std::function<bool(TermPtr)> &visit) {
  std::unordered_set<int> seen;
  std::vector<TermPtr> todo{a, b};
  while (!todo.empty()) {
    TermPtr t = todo.back();
    todo.pop_back();
    if (!seen.insert(t->id).second) continue;
    if (visit(t)) return true;
    todo.insert(todo.end(), t->args.begin(), t->args.end());
  }
  return false;
}

namespace table {
using namespace tprop;  // the property names term_ops.def writes
// An array, constant-initialized: usable from any static initializer.
const TOpInfo kTOps[] = {
#define TERM_OP(op, name, arity, props) {TOp::op, name, arity, props},
#include "src/sem/term_ops.def"
#undef TERM_OP
};
}  // namespace table

const std::vector<TOpInfo> &allTOps() {
  static const std::vector<TOpInfo> all(std::begin(table::kTOps), std::end(table::kTOps));
  return all;
}

const TOpInfo &topInfo(TOp op) { return table::kTOps[static_cast<size_t>(op)]; }

std::optional<TOp> topByName(const std::string &name) {
  static const std::unordered_map<std::string, TOp> byName = [] {
    std::unordered_map<std::string, TOp> m;
    for (const TOpInfo &i : allTOps()) m.emplace(i.name, i.op);
    return m;
  }();
  auto it = byName.find(name);
  if (it == byName.end()) return std::nullopt;
  return it->second;
}

// Note [Interning by structure]
// Structurally equal terms are one pointer. A term is looked up by a hash of
// the fields that identify it (operation, dtype, operands by pointer, the
// constant's bits, slot, index expressions by their canonical keys, binder,
// extent, origin), and on equal hashes compared field by field, so two
// different terms are never merged whatever their hashes. (The table was keyed
// by a string spelling these fields, built for every term made: a seventh of a
// 16-layer decide's instructions.)
namespace {

uint64_t bitsOf(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

void mix(size_t &h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); }

size_t structuralHash(const Term &t) {
  size_t h = static_cast<size_t>(t.op);
  mix(h, static_cast<size_t>(t.dtype));
  for (TermPtr a : t.args) mix(h, static_cast<size_t>(a->id));
  mix(h, bitsOf(t.num));
  mix(h, static_cast<size_t>(t.inum));
  mix(h, static_cast<size_t>(t.slot));
  for (const IndexExpr &e : t.index) mix(h, std::hash<std::string>()(e.key()));
  mix(h, static_cast<size_t>(t.binder));
  mix(h, t.extent.isConcrete() ? static_cast<size_t>(t.extent.size()) : std::hash<std::string>()(t.extent.symbolName()));
  mix(h, std::hash<std::string>()(t.origin));
  return h;
}

}  // namespace

bool TermContext::SameTerm::operator()(TermPtr a, TermPtr b) const {
  if (a->hash != b->hash || a->op != b->op || a->dtype != b->dtype || a->args != b->args ||
      bitsOf(a->num) != bitsOf(b->num) || a->inum != b->inum || a->slot != b->slot || a->binder != b->binder ||
      a->extent != b->extent || a->origin != b->origin || a->index.size() != b->index.size())
    return false;
  for (size_t i = 0; i < a->index.size(); ++i)
    if (a->index[i].key() != b->index[i].key()) return false;
  return true;
}

TermPtr TermContext::intern(Term t) {
  t.hash = structuralHash(t);
  auto it = table_.find(&t);
  if (it != table_.end()) return *it;
  // Note [Term budget]: substituting into nested reductions renames their
  // binders, so a deep region (an unfused attention backward) can create
  // terms without end; past the budget the region is undecided, not an OOM.
  if (terms_.size() >= kMaxTerms)
    throw Unsupported("the region needs more than " + std::to_string(kMaxTerms) + " terms", Gap::TooLarge);
  t.id = static_cast<int>(terms_.size());
  std::vector<int> fv;
  for (TermPtr a : t.args) {
    fv.insert(fv.end(), a->freeVars.begin(), a->freeVars.end());
    t.height = std::max(t.height, a->height);
  }
  for (const IndexExpr &e : t.index) e.collectVars(fv);
  std::sort(fv.begin(), fv.end());
  fv.erase(std::unique(fv.begin(), fv.end()), fv.end());
  if (isReduction(t.op)) {
    fv.erase(std::remove(fv.begin(), fv.end(), t.binder), fv.end());
    t.height += 1;
  }
  t.freeVars = std::move(fv);
  terms_.push_back(std::move(t));
  TermPtr p = &terms_.back();
  table_.insert(p);
  return p;
}

TermPtr TermContext::constant(double v, DType dtype) {
  if (!isFloating(dtype)) {
    if (dtype == DType::Bool) return boolConstant(v != 0);
    // Float to integer conversion truncates toward zero, as C++ and PyTorch do.
    return intConstant(static_cast<int64_t>(std::trunc(v)), dtype);
  }
  // Note [Constants keep their written value]
  // A floating constant keeps the double it was written with; each semantics
  // rounds it where it computes in the dtype (the evaluator's Native precision,
  // Z3's IEEE sorts). The real level sees the written value: rounding a
  // constant to f32 is floating-point rounding like any other, so
  // `x * 0.7071067811865476` and `x / 1.4142135623730951` must not differ by
  // the f32 rounding of their constants there (that made correct hand-written
  // gelu look refuted).
  Term t;
  t.op = TOp::Const;
  t.dtype = dtype;
  t.num = v;
  return intern(std::move(t));
}

TermPtr TermContext::intConstant(int64_t v, DType dtype) {
  if (isFloating(dtype)) return constant(static_cast<double>(v), dtype);
  Term t;
  t.op = TOp::Const;
  t.dtype = dtype;
  t.inum = wrapToDType(v, dtype);
  return intern(std::move(t));
}

TermPtr TermContext::read(int slot, std::vector<IndexExpr> index, DType dtype) {
  Term t;
  t.op = TOp::Read;
  t.dtype = dtype;
  t.slot = slot;
  t.index = std::move(index);
  return intern(std::move(t));
}

TermPtr TermContext::indexCmp(IndexCmpKind kind, const IndexExpr &a, const IndexExpr &b) {
  auto [alo, ahi] = (a + b * -1).bounds(vars);
  // Decide it when the ranges do.
  if (alo && ahi) {
    switch (kind) {
    case IndexCmpKind::Lt:
      if (*ahi < 0) return boolConstant(true);
      if (*alo >= 0) return boolConstant(false);
      break;
    case IndexCmpKind::Le:
      if (*ahi <= 0) return boolConstant(true);
      if (*alo > 0) return boolConstant(false);
      break;
    case IndexCmpKind::Eq:
      if (*alo == 0 && *ahi == 0) return boolConstant(true);
      if (*alo > 0 || *ahi < 0) return boolConstant(false);
      break;
    }
  }
  Term t;
  t.op = TOp::IndexCmp;
  t.dtype = DType::Bool;
  t.inum = static_cast<int64_t>(kind);
  t.index = {a, b};
  return intern(std::move(t));
}

TermPtr TermContext::indexValue(const IndexExpr &c, DType dtype) {
  if (!isIntegral(dtype)) throw std::logic_error("TermContext::indexValue: a non-integral dtype");
  if (c.isConstant()) return intConstant(c.constantPart(), dtype);
  Term t;
  t.op = TOp::IndexValue;
  t.dtype = dtype;
  t.index = {c};
  return intern(std::move(t));
}

TermPtr TermContext::make(TOp op, std::vector<TermPtr> args, DType dtype, double num) {
  // Const, Read, IndexCmp, IndexValue, Select, Cast and the reductions have
  // their own constructors; every other op takes its table arity of operands.
  if (static_cast<int>(args.size()) != topInfo(op).arity || topInfo(op).arity == 0 || isReduction(op))
    throw std::logic_error(std::string("TermContext::make: ") + topName(op) + " with " +
                           std::to_string(args.size()) + " operands");
  // A bool b converted to an integer is 0 or 1: b != 0 is b, and b == 0 is not b (a one-hot
  // compared with 0, as nll_loss_backward's decomposition writes it, is its bool compare: Note
  // [Positions as values in terms]).
  if ((op == TOp::Ne || op == TOp::Eq) && isIntegral(args[0]->dtype))
    for (int i : {0, 1})
      if (args[i]->op == TOp::Const && args[i]->inum == 0 && args[1 - i]->op == TOp::Cast &&
          args[1 - i]->args[0]->dtype == DType::Bool) {
        TermPtr b = args[1 - i]->args[0];
        return op == TOp::Ne ? b : make(TOp::Not, {b}, DType::Bool);
      }
  if (isCommutative(op) && args.size() == 2 && args[1]->id < args[0]->id) std::swap(args[0], args[1]);
  Term t;
  t.op = op;
  t.dtype = hasBoolResult(op) ? DType::Bool : dtype;
  // Comparisons remember their operands' dtype through the operands.
  t.args = std::move(args);
  t.num = num;
  return intern(std::move(t));
}

TermPtr TermContext::select(TermPtr cond, TermPtr a, TermPtr b) {
  if (cond->op == TOp::Const) return cond->inum ? a : b;
  if (a == b) return a;
  // A bool selected between the constants is the condition (or its negation): a mask written by
  // scatter(zeros, index, True) is the mask of its hits.
  if (a->dtype == DType::Bool && cond->dtype == DType::Bool && a->op == TOp::Const && b->op == TOp::Const)
    return a->inum ? cond : make(TOp::Not, {cond}, DType::Bool);
  Term t;
  t.op = TOp::Select;
  t.dtype = a->dtype;
  t.args = {cond, a, b};
  return intern(std::move(t));
}

TermPtr TermContext::cast(TermPtr x, DType to) {
  if (x->dtype == to) return x;
  // A bool converted to an integer is 0 or 1, exact in every dtype: converted again, it is the
  // bool converted once (one_hot(...).float() is the mask of its compares).
  if (x->op == TOp::Cast && isIntegral(x->dtype) && x->args[0]->dtype == DType::Bool) return cast(x->args[0], to);
  if (x->op == TOp::Const) {
    if (isFloating(x->dtype)) return constant(x->num, to);
    return intConstant(x->inum, to);
  }
  Term t;
  t.op = TOp::Cast;
  t.dtype = to;
  t.args = {x};
  return intern(std::move(t));
}

TermPtr TermContext::reduce(TOp op, int var, TermPtr body, DType dtype, const std::string &origin) {
  Dim extent = vars.extent(var);
  int canon = vars.canonical(0, body->height + 1, extent);
  TermPtr b = canon == var ? body : substitute(body, var, IndexExpr::var(canon));
  Term t;
  t.op = op;
  t.dtype = dtype;
  t.args = {b};
  t.binder = canon;
  t.extent = extent;
  t.origin = origin;
  return intern(std::move(t));
}

size_t TermContext::SubstKeyHash::operator()(const SubstKey &k) const {
  size_t h = std::hash<std::string>()(k.to);
  mix(h, static_cast<size_t>(k.term));
  mix(h, static_cast<size_t>(k.var));
  return h;
}

TermPtr TermContext::substitute(TermPtr t, int var, const IndexExpr &to) {
  if (!std::binary_search(t->freeVars.begin(), t->freeVars.end(), var)) return t;
  SubstKey cacheKey{t->id, var, to.key()};
  auto hit = substCache_.find(cacheKey);
  if (hit != substCache_.end()) return hit->second;
  TermPtr r = substituteUncached(t, var, to);
  substCache_.emplace(cacheKey, r);
  return r;
}

TermPtr TermContext::substituteUncached(TermPtr t, int var, const IndexExpr &to) {
  std::vector<TermPtr> args;
  for (TermPtr a : t->args) args.push_back(substitute(a, var, to));
  switch (t->op) {
  case TOp::Read: {
    std::vector<IndexExpr> idx;
    for (const IndexExpr &e : t->index) idx.push_back(e.substitute(var, to, vars));
    return read(t->slot, std::move(idx), t->dtype);
  }
  case TOp::IndexCmp:
    return indexCmp(static_cast<IndexCmpKind>(t->inum), t->index[0].substitute(var, to, vars),
                    t->index[1].substitute(var, to, vars));
  case TOp::IndexValue:
    return indexValue(t->index[0].substitute(var, to, vars), t->dtype);
  case TOp::Select:
    return select(args[0], args[1], args[2]);
  case TOp::Cast:
    return cast(args[0], t->dtype);
  default:
    break;
  }
  if (isReduction(t->op)) {
    // The binder is not `var` (it is bound); rebuild with a fresh binder so
    // that canonical renaming happens again.
    int fresh = vars.fresh(t->extent, "r");
    TermPtr body = substitute(args[0], t->binder, IndexExpr::var(fresh));
    return reduce(t->op, fresh, body, t->dtype, t->origin);
  }
  return make(t->op, std::move(args), t->dtype, t->num);
}

std::string TermContext::str(TermPtr t, size_t limit) const {
  std::string out;
  appendStr(t, out, limit);
  if (out.size() > limit) out.resize(limit);
  return out;
}

// Note [Bounded term printing]
// A term is a DAG and its text a tree: a region's term shares its subterms,
// and its full text can be exponential in the term's depth. The normal form
// names atoms by the first 100 characters of their term's text, for every term
// it normalizes; printing the whole text to keep 100 characters of it was a
// sixth of a 16-layer decide's instructions. Every case below only appends, so
// stopping once `limit` characters are written leaves exactly the prefix that
// the full text would have.
void TermContext::appendStr(TermPtr t, std::string &out, size_t limit) const {
  if (out.size() >= limit) return;
  switch (t->op) {
  case TOp::Const:
    out += isFloating(t->dtype) ? formatFloat(t->num) : std::to_string(t->inum);
    return;
  case TOp::Read: {
    out += (slotName ? slotName(t->slot) : "t" + std::to_string(t->slot)) + "[";
    for (size_t i = 0; i < t->index.size() && out.size() < limit; ++i) out += (i ? "," : "") + t->index[i].str(vars);
    out += "]";
    return;
  }
  case TOp::IndexCmp: {
    const char *ops[] = {"<", "<=", "=="};
    out += "(" + t->index[0].str(vars) + ops[t->inum] + t->index[1].str(vars) + ")";
    return;
  }
  case TOp::IndexValue:
    out += "value(" + t->index[0].str(vars) + ")";
    return;
  default:
    break;
  }
  if (isReduction(t->op)) {
    out += std::string(topName(t->op)) + "_{" + vars.name(t->binder) + "<" + t->extent.str() + "}(";
    appendStr(t->args[0], out, limit);
    out += ")";
    return;
  }
  out += std::string(topName(t->op)) + "(";
  for (size_t i = 0; i < t->args.size() && out.size() < limit; ++i) {
    if (i) out += ", ";
    appendStr(t->args[i], out, limit);
  }
  if (out.size() >= limit) return;
  if (t->op == TOp::PowC) out += ", " + formatFloat(t->num);
  if (t->op == TOp::Cast) out += " -> " + std::string(dtypeName(t->dtype));
  out += ")";
}

}  // namespace torchtv::sem
