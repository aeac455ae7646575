#include "src/eval/concrete.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "ir/op_registry.h"
#include "src/eval/special_functions.h"
#include "src/sem/derived.h"
#include "src/sem/semantics.h"

namespace torchtv::eval {

using sem::IndexAtom;
using sem::IndexExpr;
using sem::TermPtr;
using sem::TOp;
using Real = long double;

namespace {

std::vector<int64_t> dims(const Shape &s) {
  std::vector<int64_t> out;
  for (const Dim &d : s) {
    if (!d.isConcrete()) throw EvalError("cannot evaluate a symbolic shape " + shapeStr(s));
    out.push_back(d.size());
  }
  return out;
}

int64_t floorDiv(int64_t a, int64_t k) {
  int64_t q = a / k;
  return (a % k != 0 && ((a < 0) != (k < 0))) ? q - 1 : q;
}

class NodeEvaluator {
public:
  // Variables, bound flags and the memo are flat arrays indexed by variable
  // and term id (both dense in a TermContext, and every term is built before
  // the evaluation starts): hash maps cleared per element made a deep model's
  // evaluation mostly malloc and free.
  NodeEvaluator(sem::TermContext &tc, Precision p, const std::vector<const EvalTensor *> &operands,
                NonFiniteToInteger nonFinite = NonFiniteToInteger::Raise)
      : tc_(tc), p_(p), nonFinite_(nonFinite), operands_(operands), vars_(tc.vars.size(), kUnset), bound_(tc.vars.size(), 0),
        memoValue_(tc.size()), memoStamp_(tc.size(), 0) {}

  Real eval(TermPtr t) {
    bool invariant = true;
    for (int v : t->freeVars)
      if (bound_.at(static_cast<size_t>(v))) {
        invariant = false;
        break;
      }
    const auto id = static_cast<size_t>(t->id);
    if (invariant && memoStamp_.at(id) == element_) return memoValue_[id];
    Real r = compute(t);
    if (invariant) {
      memoStamp_[id] = element_;
      memoValue_[id] = r;
    }
    return r;
  }

  void setVar(int v, int64_t value) { vars_.at(static_cast<size_t>(v)) = value; }
  void newElement() { ++element_; }

private:
  int64_t index(const IndexExpr &e) {
    int64_t s = e.constantPart();
    for (auto &[a, c] : e.terms()) {
      int64_t v = 0;
      switch (a->kind) {
      case IndexAtom::Kind::Var:
        v = vars_.at(static_cast<size_t>(a->var));
        if (v == kUnset) throw EvalError("an index variable without a value");
        break;
      case IndexAtom::Kind::Div: v = floorDiv(index(*a->arg), a->divisor); break;
      case IndexAtom::Kind::Mod: v = index(*a->arg) - floorDiv(index(*a->arg), a->divisor) * a->divisor; break;
      }
      s += c * v;
    }
    return s;
  }

  // Rounds a floating result to the term's dtype in Native precision.
  Real fin(Real v, DType d) {
    if (!isFloating(d)) {
      if (d == DType::Bool) return v != 0 ? 1 : 0;
      return static_cast<Real>(sem::wrapToDType(static_cast<int64_t>(v), d));
    }
    if (p_ == Precision::Native) return sem::roundToDType(static_cast<double>(v), d);
    if (p_ == Precision::Double) return static_cast<double>(v);
    return v;
  }
  // Operand as the precision computes it: double in Native/Double, long double in Wide.
  Real in(Real v) { return p_ == Precision::Wide ? v : static_cast<Real>(static_cast<double>(v)); }

  Real intArith(TOp op, Real a, Real b, DType d) {
    auto x = static_cast<uint64_t>(static_cast<int64_t>(a)), y = static_cast<uint64_t>(static_cast<int64_t>(b));
    uint64_t r = op == TOp::Add ? x + y : op == TOp::Sub ? x - y : x * y;
    return static_cast<Real>(sem::wrapToDType(static_cast<int64_t>(r), d));
  }

  // The algebra derived.h's formulas are written over (Note [Derived
  // operations]): long double arithmetic in the order the formula is written
  // (its shape is this evaluator's order of rounding), library functions in
  // double (long double in Wide precision), constants the formula's doubles.
  struct RealAlgebra {
    using V = Real;
    bool wide;
    Real num(double v) const { return static_cast<Real>(v); }
    Real add(Real a, Real b) const { return a + b; }
    Real mul(Real a, Real b) const { return a * b; }
    Real div(Real a, Real b, const char *) const { return a / b; }
    Real neg(Real a) const { return -a; }
    Real exp(Real v) const { return wide ? expl(v) : static_cast<Real>(std::exp(static_cast<double>(v))); }
    Real erf(Real v) const { return wide ? erfl(v) : static_cast<Real>(std::erf(static_cast<double>(v))); }
    Real tanh(Real v) const { return wide ? tanhl(v) : static_cast<Real>(std::tanh(static_cast<double>(v))); }
  };

  Real fn(TOp op, Real x, Real num) {
    bool wide = p_ == Precision::Wide;
    RealAlgebra alg{wide};
    if (sem::hasProp(op, sem::tprop::Derived)) return sem::derivedFormula(alg, op, x);
    switch (op) {
    case TOp::Exp: return alg.exp(x);
    case TOp::Log: return wide ? logl(x) : std::log(static_cast<double>(x));
    case TOp::Log1p: return wide ? log1pl(x) : std::log1p(static_cast<double>(x));
    case TOp::Expm1: return wide ? expm1l(x) : std::expm1(static_cast<double>(x));
    case TOp::Sqrt: return wide ? sqrtl(x) : std::sqrt(static_cast<double>(x));
    case TOp::Rsqrt: return wide ? 1 / sqrtl(x) : 1.0 / std::sqrt(static_cast<double>(x));
    case TOp::Tanh: return alg.tanh(x);
    case TOp::Sin: return wide ? sinl(x) : std::sin(static_cast<double>(x));
    case TOp::Cos: return wide ? cosl(x) : std::cos(static_cast<double>(x));
    case TOp::Erf: return alg.erf(x);
    case TOp::Floor: return std::floor(static_cast<double>(x));
    case TOp::Ceil: return std::ceil(static_cast<double>(x));
    case TOp::Round: return std::nearbyint(static_cast<double>(x));
    case TOp::Trunc: return std::trunc(static_cast<double>(x));
    case TOp::Tan: return wide ? tanl(x) : std::tan(static_cast<double>(x));
    case TOp::Asin: return wide ? asinl(x) : std::asin(static_cast<double>(x));
    case TOp::Acos: return wide ? acosl(x) : std::acos(static_cast<double>(x));
    case TOp::Atan: return wide ? atanl(x) : std::atan(static_cast<double>(x));
    case TOp::Sinh: return wide ? sinhl(x) : std::sinh(static_cast<double>(x));
    case TOp::Cosh: return wide ? coshl(x) : std::cosh(static_cast<double>(x));
    case TOp::Asinh: return wide ? asinhl(x) : std::asinh(static_cast<double>(x));
    case TOp::Acosh: return wide ? acoshl(x) : std::acosh(static_cast<double>(x));
    case TOp::Atanh: return wide ? atanhl(x) : std::atanh(static_cast<double>(x));
    case TOp::Log2: return wide ? log2l(x) : std::log2(static_cast<double>(x));
    case TOp::Log10: return wide ? log10l(x) : std::log10(static_cast<double>(x));
    case TOp::Erfc: case TOp::Exp2: case TOp::Erfinv: case TOp::Lgamma: case TOp::Digamma: case TOp::I0:
    case TOp::I0e: case TOp::I1: case TOp::I1e: case TOp::BesselJ0: case TOp::BesselJ1: case TOp::SphJ0:
      return special::unary(op, static_cast<double>(x));
    default: (void)num; return NAN;
    }
  }

  Real compute(TermPtr t) {
    DType d = t->dtype;
    switch (t->op) {
    case TOp::Const:  // Note [Constants keep their written value]
      return isFloating(d) ? fin(static_cast<Real>(t->num), d) : static_cast<Real>(t->inum);
    case TOp::Read: {
      if (!operands_.at(t->slot)) throw EvalError("reads uninitialized memory");  // Note [Uninitialized memory]
      const EvalTensor &x = *operands_.at(t->slot);
      size_t flat = 0;
      for (size_t k = 0; k < t->index.size(); ++k) {
        int64_t i = index(t->index[k]);
        int64_t n = x.type.shape[k].size();
        if (i < 0 || i >= n) throw EvalError("index out of range while evaluating");
        flat = flat * n + static_cast<size_t>(i);
      }
      return x.values.at(flat);
    }
    case TOp::IndexCmp: {
      int64_t a = index(t->index[0]), b = index(t->index[1]);
      auto k = static_cast<sem::IndexCmpKind>(t->inum);
      return (k == sem::IndexCmpKind::Lt ? a < b : k == sem::IndexCmpKind::Le ? a <= b : a == b) ? 1 : 0;
    }
    case TOp::IndexValue:  // Note [Positions as values in terms]
      return static_cast<Real>(sem::wrapToDType(index(t->index[0]), d));
    case TOp::Select:
      return eval(t->args[0]) != 0 ? eval(t->args[1]) : eval(t->args[2]);
    case TOp::Raise:  // Note [Data-dependent indices]
      throw EvalRaised("an index out of range (the op raises)");
    case TOp::Unspecified:  // Note [index_put semantics]: no value, as uninitialized memory
      throw EvalError("two index positions write one element (its value is unspecified)");
    case TOp::Cast: {
      Real x = eval(t->args[0]);
      DType from = t->args[0]->dtype;
      if (d == DType::Bool) return x != 0 ? 1 : 0;  // NaN is true
      if (isFloating(d)) return fin(x, d);
      if (isFloating(from)) {
        if (std::isnan(x) || std::isinf(x)) {  // Note [Non-finite floats converted to integers]
          if (nonFinite_ == NonFiniteToInteger::Raise) throw EvalError("a non-finite float converted to an integer");
          return static_cast<Real>(sem::wrapToDType(std::numeric_limits<int64_t>::min(), d));
        }
        return static_cast<Real>(sem::wrapToDType(static_cast<int64_t>(std::trunc(x)), d));
      }
      return fin(x, d);
    }
    case TOp::Sum:
    case TOp::Pick:
    case TOp::RMax:
    case TOp::RMin:
    case TOp::Prod: {
      int64_t n = t->extent.size();
      bound_.at(static_cast<size_t>(t->binder)) = 1;
      // A pick adds from -0, the identity of IEEE addition, so that its one summand comes out as
      // it is, -0 included (Note [Reads at data-dependent positions] in src/sem/index_ops.cpp).
      Real acc = t->op == TOp::Pick ? -0.0 : t->op == TOp::Sum ? 0 : t->op == TOp::Prod ? 1 : NAN;
      for (int64_t k = 0; k < n; ++k) {
        vars_[static_cast<size_t>(t->binder)] = k;
        Real x = eval(t->args[0]);
        if (t->op == TOp::Sum || t->op == TOp::Pick) acc = isFloating(d) ? fin(arith(TOp::Add, acc, x), d) : intArith(TOp::Add, acc, x, d);
        else if (t->op == TOp::Prod) acc = isFloating(d) ? fin(arith(TOp::Mul, acc, x), d) : intArith(TOp::Mul, acc, x, d);
        else if (k == 0) acc = x;
        else acc = minmax(t->op == TOp::RMax ? TOp::Maximum : TOp::Minimum, acc, x);
      }
      bound_[static_cast<size_t>(t->binder)] = 0;
      return acc;
    }
    default:
      break;
    }
    if (t->args.size() == 1) {
      Real x = eval(t->args[0]);
      switch (t->op) {
      case TOp::Neg: return isFloating(d) ? -x : intArith(TOp::Sub, 0, x, d);
      case TOp::Abs: return isFloating(d) ? std::fabs(x) : fin(x < 0 ? intArith(TOp::Sub, 0, x, d) : x, d);
      case TOp::Not: return x != 0 ? 0 : 1;
      case TOp::IsNan: return std::isnan(x) ? 1 : 0;
      case TOp::IsInf: return std::isinf(x) ? 1 : 0;
      case TOp::PowC: return fin(powConst(in(x), t->args[0]->dtype, t->num), d);
      default: return fin(fn(t->op, in(x), t->num), d);
      }
    }
    Real a = eval(t->args[0]), b = eval(t->args[1]);
    DType od = t->args[0]->dtype;
    switch (t->op) {
    case TOp::Add: case TOp::Sub: case TOp::Mul:
      if (!isFloating(d)) return intArith(t->op, a, b, d);
      return fin(arith(t->op, a, b), d);
    case TOp::Div:
      if (!isFloating(d)) throw EvalError("integer division");
      return fin(arith(TOp::Div, a, b), d);
    case TOp::Maximum: case TOp::Minimum: return minmax(t->op, a, b);
    case TOp::Atan2: return fin(p_ == Precision::Wide ? atan2l(a, b) : std::atan2(static_cast<double>(a), static_cast<double>(b)), d);
    case TOp::PowT: return fin(p_ == Precision::Wide ? powl(a, b) : std::pow(static_cast<double>(a), static_cast<double>(b)), d);
    case TOp::Fmod: return fin(p_ == Precision::Wide ? fmodl(a, b) : std::fmod(static_cast<double>(a), static_cast<double>(b)), d);
    case TOp::Gcd: {
      // ATen's Euclid on |a|, |b| in the dtype: |min| stays negative (two's complement).
      auto absIn = [d](Real v) {
        uint64_t u = static_cast<uint64_t>(static_cast<int64_t>(v));
        return sem::wrapToDType(static_cast<int64_t>(v < 0 ? 0 - u : u), d);
      };
      int64_t x = absIn(a), y = absIn(b);
      while (x != 0) {
        int64_t r = y % x;
        y = x;
        x = r;
      }
      return static_cast<Real>(y);
    }
    case TOp::ShiftLeft: case TOp::ShiftRight: {  // Note [Shifts] in src/sem/elementwise.cpp
      auto x = static_cast<int64_t>(a), by = static_cast<int64_t>(b);
      if (by < 0 || by >= dtypeBits(d)) throw EvalError("a shift by " + std::to_string(by) + " outside [0, bits)");
      if (t->op == TOp::ShiftRight) return static_cast<Real>(x >> by);
      return static_cast<Real>(sem::wrapToDType(static_cast<int64_t>(static_cast<uint64_t>(x) << by), d));
    }
    case TOp::Hypot: case TOp::Igamma: case TOp::Igammac: case TOp::Fmax: case TOp::Fmin: case TOp::Zeta:
      return fin(special::binary(t->op, static_cast<double>(a), static_cast<double>(b)), d);
    case TOp::Nextafter:
      if (d == DType::F32) return std::nextafterf(static_cast<float>(a), static_cast<float>(b));
      if (d == DType::F64) return std::nextafter(static_cast<double>(a), static_cast<double>(b));
      throw EvalError("nextafter in " + std::string(dtypeName(d)));
    case TOp::Lt: case TOp::Le: case TOp::Gt: case TOp::Ge: case TOp::Eq: case TOp::Ne:
      return *sem::compareWith(t->op, a, b);
    case TOp::And: return (a != 0) && (b != 0);
    case TOp::Or: return (a != 0) || (b != 0);
    case TOp::Xor: return (a != 0) != (b != 0);
    default: (void)od; throw EvalError(std::string("cannot evaluate ") + sem::topName(t->op));
    }
  }

  // One floating operation, in double (Native, Double) or long double (Wide):
  // a double result rounded once more to f32/f16/bf16 is still correctly
  // rounded (53 >= 2 * 24 + 2), a long double one rounded to f64 would not be.
  Real arith(TOp op, Real a, Real b) {
    if (p_ == Precision::Wide)
      return op == TOp::Add ? a + b : op == TOp::Sub ? a - b : op == TOp::Mul ? a * b : a / b;
    double x = static_cast<double>(a), y = static_cast<double>(b);
    return op == TOp::Add ? x + y : op == TOp::Sub ? x - y : op == TOp::Mul ? x * y : x / y;
  }

  Real minmax(TOp op, Real a, Real b) {
    if (std::isnan(a) || std::isnan(b)) return NAN;
    if (op == TOp::Maximum) return a < b ? b : a;
    return b < a ? b : a;
  }

  // PyTorch's pow(tensor, scalar) special cases (pow_tensor_scalar_optimized_kernel).
  Real powConst(Real x, DType d, double e) {
    auto r = [&](Real v) { return fin(v, d); };
    if (e == 2) return arith(TOp::Mul, x, x);
    if (e == 3) return arith(TOp::Mul, r(arith(TOp::Mul, x, x)), x);
    if (e == 0.5) return p_ == Precision::Wide ? sqrtl(x) : std::sqrt(static_cast<double>(x));
    if (e == -0.5) return arith(TOp::Div, 1, r(p_ == Precision::Wide ? sqrtl(x) : std::sqrt(static_cast<double>(x))));
    if (e == -1) return arith(TOp::Div, 1, x);
    if (e == -2) return arith(TOp::Div, 1, r(arith(TOp::Mul, x, x)));
    return p_ == Precision::Wide ? powl(x, static_cast<Real>(e)) : std::pow(static_cast<double>(x), e);
  }

  sem::TermContext &tc_;
  Precision p_;
  NonFiniteToInteger nonFinite_;
  const std::vector<const EvalTensor *> &operands_;
  static constexpr int64_t kUnset = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> vars_;
  std::vector<char> bound_;
  std::vector<Real> memoValue_;
  std::vector<uint64_t> memoStamp_;  // the element a memo entry belongs to (0: none)
  uint64_t element_ = 1;
};

}  // namespace

std::vector<long long> unflatten(const Shape &shape, size_t flat) {
  std::vector<long long> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    auto n = static_cast<size_t>(shape[d].size());
    idx[d] = static_cast<long long>(flat % n);
    flat /= n;
  }
  return idx;
}

namespace {

// Note [Uninitialized memory]
// empty, empty_like and the like (the registry's `uninitialized` column) give
// memory nobody wrote: any values at all. The evaluator gives them none, and
// an element whose term reads one fails ("reads uninitialized memory"), so
// what it does compute is exact whatever that memory holds: addmm with
// beta=0, copy and fill into an empty buffer do not read it. A refutation
// then never rests on a made-up fill.
bool uninitialized(const Value *v) { return v->producer && opProps(v->producer->op).uninitialized; }

// Why an output of a node has no value: the op has no semantics for it.
using Missing = std::map<const Value *, std::string>;

const EvalTensor &valueOf(const std::map<const Value *, EvalTensor> &values, const Missing &missing, const Value *v) {
  auto it = values.find(v);
  if (it != values.end()) return it->second;
  auto why = missing.find(v);
  throw EvalError(why != missing.end() ? why->second : "a value read before it is computed");
}

// Evaluates every output of `node` into `values`, its operands' values already
// there (none for uninitialized memory). An output the op has no semantics for
// (sort's indices) is left out, with the reason in `missing`, so that the
// node's other outputs still evaluate; a read of it throws. A node none of
// whose outputs has semantics throws.
void evaluateNode(const Node &n, Precision precision, std::map<const Value *, EvalTensor> &values, Missing &missing,
                  NonFiniteToInteger nonFinite = NonFiniteToInteger::Raise) {
  const Node *node = &n;
  if (opProps(node->op).uninitialized) return;
  std::vector<const EvalTensor *> operands;
  for (const Value *v : node->inputs)
    operands.push_back(!v || uninitialized(v) ? nullptr : &valueOf(values, missing, v));
  size_t unsupported = 0;
  for (size_t o = 0; o < node->outputs.size(); ++o) {
    const Value *out = node->outputs[o];
    EvalTensor result{out->type, {}};
    std::vector<int64_t> shape = dims(out->type.shape);
    sem::TermContext tc;
    std::vector<IndexExpr> idx;
    std::vector<int> vars;
    for (const Dim &d : out->type.shape) {
      vars.push_back(tc.vars.fresh(d, "i"));
      idx.push_back(IndexExpr::var(vars.back()));
    }
    TermPtr term;
    try {
      term = sem::opTerm(tc, *node, static_cast<int>(o), idx, [&](int k, const std::vector<IndexExpr> &at) {
        const Value *v = node->inputs.at(k);
        return tc.read(k, at, v->type.dtype);
      });
    } catch (const sem::Unsupported &e) {
      if (++unsupported == node->outputs.size()) throw EvalError(e.what());
      missing[out] = e.what();
      continue;
    }
    NodeEvaluator ev(tc, precision, operands, nonFinite);
    auto total = numel(out->type.shape).value_or(0);
    result.values.resize(static_cast<size_t>(total));
    for (int64_t flat = 0; flat < total; ++flat) {
      int64_t rest = flat;
      for (size_t d = shape.size(); d-- > 0;) {
        ev.setVar(vars[d], rest % shape[d]);
        rest /= shape[d];
      }
      ev.newElement();
      result.values[static_cast<size_t>(flat)] = ev.eval(term);
    }
    values[out] = std::move(result);
  }
}

}  // namespace

std::vector<EvalTensor> evaluateGraph(const Graph &g, const std::vector<EvalTensor> &inputs, Precision precision,
                                      std::map<const Value *, EvalTensor> *trace, const std::vector<size_t> *outputs) {
  std::map<const Value *, EvalTensor> values;
  if (inputs.size() != g.inputs().size()) throw EvalError("wrong number of inputs");
  for (size_t i = 0; i < inputs.size(); ++i) values[g.inputs()[i]] = inputs[i];
  std::vector<bool> wanted(g.outputs().size(), outputs == nullptr);
  if (outputs)
    for (size_t o : *outputs) wanted.at(o) = true;
  std::unordered_set<const Node *> live;
  if (outputs) live = liveNodes(g, wanted);
  Missing missing;
  for (const auto &node : g.nodes())
    if (!outputs || live.count(node.get())) evaluateNode(*node, precision, values, missing);
  std::vector<EvalTensor> outs;
  for (size_t o = 0; o < g.outputs().size(); ++o) {
    const Value *v = g.outputs()[o];
    if (!wanted[o]) {
      outs.push_back(EvalTensor{v->type, {}});
      continue;
    }
    if (uninitialized(v)) throw EvalError("returns uninitialized memory");
    outs.push_back(valueOf(values, missing, v));
  }
  if (trace) *trace = std::move(values);
  return outs;
}

std::map<const Value *, EvalTensor> evaluateWhatCan(const Graph &g, const std::vector<EvalTensor> &inputs,
                                                    Precision precision, NonFiniteToInteger nonFinite) {
  std::map<const Value *, EvalTensor> values;
  if (inputs.size() != g.inputs().size()) throw EvalError("wrong number of inputs");
  for (size_t i = 0; i < inputs.size(); ++i) values[g.inputs()[i]] = inputs[i];
  Missing missing;
  for (const auto &node : g.nodes()) {
    bool operandsKnown = std::all_of(node->inputs.begin(), node->inputs.end(),
                                     [&](const Value *v) { return !v || values.count(v) || uninitialized(v); });
    if (!operandsKnown) continue;
    try {
      evaluateNode(*node, precision, values, missing, nonFinite);
    } catch (const std::exception &) {  // EvalError, or sem::Unsupported from an element
      for (const Value *out : node->outputs) values.erase(out);  // none half-evaluated
    }
  }
  return values;
}

}  // namespace torchtv::eval
