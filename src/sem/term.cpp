#include "src/sem/term.h"

#include <algorithm>
#include <cmath>
#include <cstring>

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

std::string doubleBits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return std::to_string(b);
}

bool isCommutative(TOp op) {
  // Bitwise-commutative (Note [Commutative ops] in src/match/value_numbering.h).
  return op == TOp::Add || op == TOp::Mul || op == TOp::Eq || op == TOp::Ne || op == TOp::And ||
         op == TOp::Or || op == TOp::Xor;
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

const char *topName(TOp op) {
  switch (op) {
  case TOp::Const: return "const";
  case TOp::Read: return "read";
  case TOp::IndexCmp: return "index_cmp";
  case TOp::Add: return "add";
  case TOp::Sub: return "sub";
  case TOp::Mul: return "mul";
  case TOp::Div: return "div";
  case TOp::Neg: return "neg";
  case TOp::Abs: return "abs";
  case TOp::Maximum: return "maximum";
  case TOp::Minimum: return "minimum";
  case TOp::Exp: return "exp";
  case TOp::Log: return "log";
  case TOp::Log1p: return "log1p";
  case TOp::Expm1: return "expm1";
  case TOp::Sqrt: return "sqrt";
  case TOp::Rsqrt: return "rsqrt";
  case TOp::Tanh: return "tanh";
  case TOp::Sigmoid: return "sigmoid";
  case TOp::Sin: return "sin";
  case TOp::Cos: return "cos";
  case TOp::Erf: return "erf";
  case TOp::Atan2: return "atan2";
  case TOp::PowT: return "pow";
  case TOp::Gelu: return "gelu";
  case TOp::GeluTanh: return "gelu_tanh";
  case TOp::Silu: return "silu";
  case TOp::Tan: return "tan";
  case TOp::Asin: return "asin";
  case TOp::Acos: return "acos";
  case TOp::Atan: return "atan";
  case TOp::Sinh: return "sinh";
  case TOp::Cosh: return "cosh";
  case TOp::Asinh: return "asinh";
  case TOp::Acosh: return "acosh";
  case TOp::Atanh: return "atanh";
  case TOp::Log2: return "log2";
  case TOp::Log10: return "log10";
  case TOp::Fmod: return "fmod";
  case TOp::Trunc: return "trunc";
  case TOp::PowC: return "powc";
  case TOp::Raise: return "raise";
  case TOp::Floor: return "floor";
  case TOp::Ceil: return "ceil";
  case TOp::Round: return "round";
  case TOp::Sign: return "sign";
  case TOp::IsNan: return "isnan";
  case TOp::IsInf: return "isinf";
  case TOp::Lt: return "lt";
  case TOp::Le: return "le";
  case TOp::Gt: return "gt";
  case TOp::Ge: return "ge";
  case TOp::Eq: return "eq";
  case TOp::Ne: return "ne";
  case TOp::And: return "and";
  case TOp::Or: return "or";
  case TOp::Xor: return "xor";
  case TOp::Not: return "not";
  case TOp::Select: return "select";
  case TOp::Cast: return "cast";
  case TOp::Sum: return "sum";
  case TOp::RMax: return "rmax";
  case TOp::RMin: return "rmin";
  }
  return "?";
}

bool isReduction(TOp op) { return op == TOp::Sum || op == TOp::RMax || op == TOp::RMin; }

bool isUninterpreted(TOp op) {
  switch (op) {
  case TOp::Exp: case TOp::Log: case TOp::Log1p: case TOp::Expm1: case TOp::Rsqrt: case TOp::Tanh:
  case TOp::Sigmoid: case TOp::Sin: case TOp::Cos: case TOp::Erf: case TOp::Atan2: case TOp::PowT:
  case TOp::Gelu: case TOp::GeluTanh: case TOp::Silu: case TOp::Tan: case TOp::Asin: case TOp::Acos:
  case TOp::Atan: case TOp::Sinh: case TOp::Cosh: case TOp::Asinh: case TOp::Acosh: case TOp::Atanh:
  case TOp::Log2: case TOp::Log10: case TOp::Fmod:
    return true;
  default:
    return false;
  }
}

TermPtr TermContext::intern(Term t) {
  std::string key = std::to_string(static_cast<int>(t.op)) + "|" + std::string(dtypeName(t.dtype)) + "|";
  for (TermPtr a : t.args) key += std::to_string(a->id) + ",";
  key += "|" + doubleBits(t.num) + "|" + std::to_string(t.inum) + "|" + std::to_string(t.slot) + "|";
  for (const IndexExpr &e : t.index) key += e.key() + ";";
  key += "|" + std::to_string(t.binder) + "|" + t.extent.str() + "|" + t.origin;
  auto it = table_.find(key);
  if (it != table_.end()) return it->second;
  // Note [Term budget]: substituting into nested reductions renames their
  // binders, so a deep region (an unfused attention backward) can create
  // terms without end; past the budget the region is undecided, not an OOM.
  if (terms_.size() >= kMaxTerms)
    throw Unsupported("the region needs more than " + std::to_string(kMaxTerms) + " terms");
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
  t.key = key;
  terms_.push_back(std::move(t));
  TermPtr p = &terms_.back();
  table_.emplace(key, p);
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

TermPtr TermContext::make(TOp op, std::vector<TermPtr> args, DType dtype, double num) {
  if (isCommutative(op) && args.size() == 2 && args[1]->id < args[0]->id) std::swap(args[0], args[1]);
  Term t;
  t.op = op;
  bool boolResult = op == TOp::Lt || op == TOp::Le || op == TOp::Gt || op == TOp::Ge || op == TOp::Eq ||
                    op == TOp::Ne || op == TOp::And || op == TOp::Or || op == TOp::Xor || op == TOp::Not ||
                    op == TOp::IsNan || op == TOp::IsInf;
  t.dtype = boolResult ? DType::Bool : dtype;
  // Comparisons remember their operands' dtype through the operands.
  t.args = std::move(args);
  t.num = num;
  return intern(std::move(t));
}

TermPtr TermContext::select(TermPtr cond, TermPtr a, TermPtr b) {
  if (cond->op == TOp::Const) return cond->inum ? a : b;
  if (a == b) return a;
  Term t;
  t.op = TOp::Select;
  t.dtype = a->dtype;
  t.args = {cond, a, b};
  return intern(std::move(t));
}

TermPtr TermContext::cast(TermPtr x, DType to) {
  if (x->dtype == to) return x;
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

TermPtr TermContext::substitute(TermPtr t, int var, const IndexExpr &to) {
  if (!std::binary_search(t->freeVars.begin(), t->freeVars.end(), var)) return t;
  auto cacheKey = std::to_string(t->id) + "/" + std::to_string(var) + "/" + to.key();
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
  case TOp::Select:
    return select(args[0], args[1], args[2]);
  case TOp::Cast:
    return cast(args[0], t->dtype);
  case TOp::Sum:
  case TOp::RMax:
  case TOp::RMin: {
    // The binder is not `var` (it is bound); rebuild with a fresh binder so
    // that canonical renaming happens again.
    int fresh = vars.fresh(t->extent, "r");
    TermPtr body = substitute(args[0], t->binder, IndexExpr::var(fresh));
    return reduce(t->op, fresh, body, t->dtype, t->origin);
  }
  default:
    return make(t->op, std::move(args), t->dtype, t->num);
  }
}

std::string TermContext::str(TermPtr t) const {
  switch (t->op) {
  case TOp::Const:
    return isFloating(t->dtype) ? formatFloat(t->num) : std::to_string(t->inum);
  case TOp::Read: {
    std::string s = "t" + std::to_string(t->slot) + "[";
    for (size_t i = 0; i < t->index.size(); ++i) s += (i ? "," : "") + t->index[i].str(vars);
    return s + "]";
  }
  case TOp::IndexCmp: {
    const char *ops[] = {"<", "<=", "=="};
    return "(" + t->index[0].str(vars) + ops[t->inum] + t->index[1].str(vars) + ")";
  }
  case TOp::Sum:
  case TOp::RMax:
  case TOp::RMin:
    return std::string(topName(t->op)) + "_{" + vars.name(t->binder) + "<" + t->extent.str() + "}(" +
           str(t->args[0]) + ")";
  default: {
    std::string s = std::string(topName(t->op)) + "(";
    for (size_t i = 0; i < t->args.size(); ++i) s += (i ? ", " : "") + str(t->args[i]);
    if (t->op == TOp::PowC) s += ", " + formatFloat(t->num);
    if (t->op == TOp::Cast) s += " -> " + std::string(dtypeName(t->dtype));
    return s + ")";
  }
  }
}

}  // namespace torchtv::sem
