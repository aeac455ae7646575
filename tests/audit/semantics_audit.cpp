// The semantics audit (issue 15, item 3): every op torchtv gives semantics,
// evaluated by torchtv's evaluator (src/eval, Precision::Native) and by
// LibTorch's own kernel (src/torch/replay.h) on seeded random, special (+-0, +-inf,
// NaN, denormals, extremes, rounding ties) and tied inputs, at each dtype the
// semantics claim, with empty, size-1, 0-dim and broadcast shapes.
//
// What "agree" means depends on how the bitwise prover reads the op
// (Note [Bitwise-faithful semantics] in ir/bitwise_faithful.h):
// - formula: the op's term is IEEE arithmetic, selects and casts only, used as
//   is at level bitwise: torchtv and ATen must agree bit for bit (every NaN
//   matches every NaN, +0 and -0 differ);
// - atom: the term is one uninterpreted function of its operands (exp, tanh,
//   ...): torchtv's libm value need only be within rounding of ATen's, but the
//   kernel must give an element the same bits wherever it sits in the tensor,
//   since the bitwise prover reads the atom per element: the kernel is also run
//   element by element and compared bit for bit;
// - reduction: the value is opaque at level bitwise (Note [Bitwise regions]):
//   within rounding;
// - real-only: listed in ir/bitwise_faithful.cpp, opaque at level bitwise:
//   within rounding.
// An op whose term wraps arithmetic around an atom cannot be checked bit for
// bit here and must be listed real-only.
//
// Note [Auditing definitions]
// An op without semantics of its own that a bundled definition expands
// (fusions/decompositions.tvir, written by tools/decompositions/gen_definitions.py
// from torch._decomp) is audited through that definition: the one-node graph is
// normalized with the bundled definitions (exactly what the verifier does), and
// the expansion is evaluated against ATen's kernel on the op. A definition
// holds at level real only (Note [Exact expansions]), so these rows are
// real-only: within rounding on finite values, and the same NaN, inf and zero
// pattern on the special draws. Their cases are data, next to the definitions'
// generator: tests/audit/decomposition_cases.txt (`--cases FILE`); the generator
// runs this audit on its candidates (`--fusions DIR --cases FILE --cases-only`)
// and ships only the definitions whose every case agrees.
//
// Prints a table and exits 1 on any disagreement that
// tests/audit/known_disagreements.txt does not list (with its reason).
// Usage: semantics_audit [--known FILE] [--out FILE] [--only OP] [--seed N]
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "ir/bitwise_faithful.h"
#include "ir/op_registry.h"
#include "ir/text_format.h"
#include "src/normalize/normalize.h"
#include "src/eval/concrete.h"
#include "src/torch/replay.h"
#include "src/sem/semantics.h"
#include "tests/audit/audit_cases.h"

namespace torchtv::audit {

namespace {

constexpr int kRandomDraws = 3, kSpecialDraws = 4, kTieDraws = 2;
// Within rounding: this many units in the last place, or (reductions, whose
// order of accumulation differs) this many epsilons of the inputs' scale.
constexpr double kUlps = 8, kEpsilons = 16;

enum class Mode { Formula, Atom, Reduction, RealOnly, FormulaAroundAtom };

const char *modeName(Mode m) {
  switch (m) {
  case Mode::Formula: return "formula";
  case Mode::Atom: return "atom";
  case Mode::Reduction: return "reduction";
  case Mode::RealOnly: return "real-only";
  case Mode::FormulaAroundAtom: return "formula around an atom";
  }
  return "?";
}

// ---- terms: how the bitwise prover reads the op

bool isAtom(sem::TermPtr t) {
  // src/smt/encode.cpp interprets pow(x, c) at IEEE only for these exponents.
  if (t->op == sem::TOp::PowC) return t->num != 2 && t->num != 3 && t->num != 0.5 && t->num != -1;
  return sem::isUninterpreted(t->op);
}

sem::TermPtr stripCasts(sem::TermPtr t) {
  while (t->op == sem::TOp::Cast) t = t->args[0];
  return t;
}

struct TermFacts {
  bool reduction = false, atom = false, bare = true;
};

void scan(sem::TermPtr t, TermFacts &f, std::set<sem::TermPtr> &seen) {
  if (!seen.insert(t).second) return;
  if (sem::isReduction(t->op)) f.reduction = true;
  if (isAtom(t)) f.atom = true;
  for (sem::TermPtr a : t->args) scan(a, f, seen);
}

// Mode of the node's op from its terms (every output the case's graph
// returns: an output without semantics, such as max pooling's indices, is
// left out by not returning it); throws sem::Unsupported.
Mode modeOf(const Graph &g, const Node &n) {
  if (!bitwiseFaithful(n)) return Mode::RealOnly;
  TermFacts f;
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    if (std::find(g.outputs().begin(), g.outputs().end(), n.outputs[o]) == g.outputs().end()) continue;
    sem::TermContext tc;
    std::vector<sem::IndexExpr> idx;
    for (const Dim &d : n.outputs[o]->type.shape) idx.push_back(sem::IndexExpr::var(tc.vars.fresh(d, "i")));
    sem::TermPtr t = sem::opTerm(tc, n, static_cast<int>(o), idx, [&](int k, const std::vector<sem::IndexExpr> &at) {
      return tc.read(k, at, n.inputs.at(k)->type.dtype);
    });
    std::set<sem::TermPtr> seen;
    scan(t, f, seen);
    sem::TermPtr root = stripCasts(t);
    if (isAtom(root)) {
      for (sem::TermPtr a : root->args) {
        sem::TermPtr s = stripCasts(a);
        if (s->op != sem::TOp::Read && s->op != sem::TOp::Const) f.bare = false;
      }
    } else if (f.atom) {
      f.bare = false;
    }
  }
  if (f.reduction) return Mode::Reduction;
  if (!f.atom) return Mode::Formula;
  return f.bare ? Mode::Atom : Mode::FormulaAroundAtom;
}

// ---- values

double maxFinite(DType d) {
  switch (d) {
  case DType::F16: return 65504.0;
  case DType::BF16: return 3.3895313892515355e38;
  case DType::F32: return std::numeric_limits<float>::max();
  default: return std::numeric_limits<double>::max();
  }
}
int mantissaBits(DType d) { return d == DType::F16 ? 10 : d == DType::BF16 ? 7 : d == DType::F32 ? 23 : 52; }
int minExponent(DType d) { return d == DType::F16 ? -14 : d == DType::F64 ? -1022 : -126; }
double epsilonOf(DType d) { return std::ldexp(1.0, -mantissaBits(d)); }

// Units in the last place between two finite values of dtype d (0 for +0 vs -0).
double ulpDistance(double a, double b, DType d) {
  auto ordinal = [&](double v) -> long double {
    if (v == 0) return 0;
    int e = std::max(std::ilogb(v), minExponent(d));
    long double k = static_cast<long double>(e - minExponent(d)) * std::ldexp(1.0L, mantissaBits(d)) +
                    std::fabs(static_cast<long double>(v)) / std::ldexp(1.0L, e - mantissaBits(d));
    return v < 0 ? -k : k;
  };
  return static_cast<double>(std::fabs(ordinal(a) - ordinal(b)));
}

bool sameBits(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  uint64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

std::string fmt(double v) {
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

enum class DrawKind { Random, Special, Ties };
const char *drawName(DrawKind k) { return k == DrawKind::Random ? "random" : k == DrawKind::Special ? "special" : "ties"; }

std::vector<double> specialValues(DType d) {
  if (d == DType::Bool) return {0, 1};
  if (d == DType::I32) return {0, 1, -1, 2, -7, 100, 2147483647.0, -2147483648.0};
  if (d == DType::I64) return {0, 1, -1, 2, -7, 100, 9007199254740991.0, -9007199254740992.0};
  if (isIntegral(d)) {  // u8, i8, i16: their own extremes; -1 and -7 in u8 wrap as a cast does
    std::vector<double> v;
    for (int64_t x : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{-7}, int64_t{100},
                      (int64_t{1} << (dtypeBits(d) - 1)) - 1, -(int64_t{1} << (dtypeBits(d) - 1))})
      v.push_back(static_cast<double>(sem::wrapToDType(x, d)));
    return v;
  }
  double denorm = std::ldexp(1.0, minExponent(d) - mantissaBits(d));
  double minNormal = std::ldexp(1.0, minExponent(d));
  std::vector<double> v = {0.0, -0.0, INFINITY, -INFINITY, NAN, denorm, -denorm, minNormal, -minNormal,
                           maxFinite(d), -maxFinite(d), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3, 100, 1e-3, 88.75,
                           -88.75, 20, -20, 0.1};
  for (double &x : v) x = sem::roundToDType(x, d);
  return v;
}

// An input's elements: `%iN` is an index in [0, N), `%m...` a bool mask, `%zK` holds K nonzero elements.
std::vector<double> drawValues(const Value &in, size_t n, DrawKind kind, std::mt19937_64 &rng) {
  DType d = in.type.dtype;
  std::vector<double> out(n);
  const std::string &name = in.name;
  if (name.size() > 1 && name[0] == 'i' && std::isdigit(static_cast<unsigned char>(name[1]))) {
    std::uniform_int_distribution<int64_t> u(0, std::stoll(name.substr(1)) - 1);
    for (double &x : out) x = static_cast<double>(u(rng));
    return out;
  }
  // `%unit...`: in [0, 1] (a probability: binary_cross_entropy raises outside), its ends among the special draws.
  if (name.rfind("unit", 0) == 0 && isFloating(d)) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::uniform_int_distribution<int> pick(0, 3);
    for (double &x : out) {
      int p = pick(rng);
      x = sem::roundToDType(kind == DrawKind::Random || p == 3 ? u(rng) : p == 0 ? 0.0 : p == 1 ? 1.0 : 0.5, d);
    }
    return out;
  }
  // `%zK...`: exactly K nonzero elements at random positions (nonzero's result has K rows).
  if (name.size() > 1 && name[0] == 'z' && std::isdigit(static_cast<unsigned char>(name[1]))) {
    std::vector<size_t> order(n);
    for (size_t k = 0; k < n; ++k) order[k] = k;
    std::shuffle(order.begin(), order.end(), rng);
    size_t hot = std::min<size_t>(n, std::stoull(name.substr(1)));
    std::vector<double> pool = kind == DrawKind::Special && isFloating(d) ? std::vector<double>{NAN, INFINITY, -1, 0.5}
                                                                          : std::vector<double>{1, -2, 3};
    for (size_t k = 0; k < n; ++k) out[order[k]] = k < hot ? (d == DType::Bool ? 1 : pool[k % pool.size()]) : (k % 2 && isFloating(d) ? -0.0 : 0.0);
    return out;
  }
  std::normal_distribution<double> normal(0.0, 3.0);
  std::uniform_int_distribution<int> coin(0, 9), small(-20, 20);
  std::vector<double> special = specialValues(d), ties = {-1, 0, 1, 2};
  if (isFloating(d)) ties.push_back(-0.0);
  for (double &x : out) {
    if (d == DType::Bool || name[0] == 'm') x = coin(rng) < 5 ? 1 : 0;
    else if (kind == DrawKind::Ties) x = ties[std::uniform_int_distribution<size_t>(0, ties.size() - 1)(rng)];
    else if (kind == DrawKind::Special && coin(rng) < 6)
      x = special[std::uniform_int_distribution<size_t>(0, special.size() - 1)(rng)];
    else if (isFloating(d)) x = sem::roundToDType(normal(rng), d);
    else x = small(rng);
    // A value the dtype holds (u8 gets no negative one), wrapped as a cast does.
    if (isIntegral(d) && d != DType::Bool) x = static_cast<double>(sem::wrapToDType(static_cast<int64_t>(x), d));
  }
  return out;
}

// ---- one case at one dtype

struct Result {
  std::string label, dtype;
  Mode mode = Mode::Formula;
  int draws = 0, evaluated = 0;
  size_t elements = 0, bitEqual = 0;
  double maxUlp = 0;
  std::string kind;     // empty: agrees; else the disagreement's kind
  std::string example;  // the first disagreement
  std::string note;
  std::string notRun;  // why LibTorch could not run the op at all (not a disagreement)
};

std::string substitute(std::string s, const std::string &from, const std::string &to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::unique_ptr<Module> parseCase(const AuditCase &c, const std::string &dtype, const std::string &shape) {
  std::string text = "graph @g" + substitute(substitute(c.graph, "$S", shape), "$T", dtype) + "\n";
  return std::make_unique<Module>(parseModule(text, "audit(" + c.op + ")"));
}

struct Outcome {
  std::vector<ConcreteTensor> values;
  std::string error;
};

Outcome runTorch(const Graph &g, const std::vector<ConcreteTensor> &in) {
  try {
    return {replayGraph(g, in), ""};
  } catch (const ReplayUnavailable &) {
    throw;
  } catch (const std::exception &e) {
    return {{}, e.what()};
  }
}

Outcome runTorchtv(const Graph &g, const std::vector<ConcreteTensor> &in) {
  std::vector<eval::EvalTensor> ev;
  for (const ConcreteTensor &c : in) ev.push_back({c.type, {c.values.begin(), c.values.end()}});
  try {
    Outcome o;
    for (const eval::EvalTensor &t : eval::evaluateGraph(g, ev, eval::Precision::Native))
      o.values.push_back({t.type, {t.values.begin(), t.values.end()}});
    return o;
  } catch (const std::exception &e) {
    return {{}, e.what()};
  }
}

void disagree(Result &r, const std::string &kind, const std::string &example) {
  if (r.kind.empty()) {
    r.kind = kind;
    r.example = example;
  }
}

// Operand values at flat index k, where every operand has the output's shape.
std::string operandsAt(const Graph &g, const std::vector<ConcreteTensor> &in, size_t k, const TensorType &out) {
  std::string s;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].type.shape != out.shape) return "";
    s += (s.empty() ? "" : ", ") + std::string("%") + g.inputs()[i]->name + " = " + fmt(in[i].values[k]);
  }
  return s.empty() ? "" : " at " + s;
}

double scaleOf(const std::vector<ConcreteTensor> &in) {
  double m = 0;
  size_t n = 1;
  for (const ConcreteTensor &c : in) {
    n = std::max(n, c.values.size());
    for (double v : c.values)
      if (std::isfinite(v)) m = std::max(m, std::fabs(v));
  }
  return (1 + m) * (1 + m) * static_cast<double>(n);
}

void compare(Result &r, const Graph &g, const std::vector<ConcreteTensor> &in, const Outcome &tv, const Outcome &at,
             DrawKind kind) {
  std::string where = std::string(" (") + drawName(kind) + " draw)";
  if (at.error.find("not implemented for '") != std::string::npos) {
    r.notRun = "LibTorch's CPU build has no kernel for this dtype";
    return;
  }
  if (!tv.error.empty() || !at.error.empty()) {
    if (!tv.error.empty() && !at.error.empty()) return;  // both raise
    if (!tv.error.empty()) disagree(r, "eval-raises", "torchtv: " + tv.error + where);
    else disagree(r, "aten-raises", "ATen: " + at.error + where);
    return;
  }
  ++r.evaluated;
  bool bitwise = r.mode == Mode::Formula;
  for (size_t o = 0; o < tv.values.size(); ++o) {
    const ConcreteTensor &a = tv.values[o], &b = at.values.at(o);
    DType d = a.type.dtype;
    double tol = kEpsilons * epsilonOf(isFloating(d) ? d : DType::F64) * scaleOf(in);
    for (size_t k = 0; k < a.values.size(); ++k) {
      double x = a.values[k], y = b.values[k];
      ++r.elements;
      if (sameBits(x, y)) {
        ++r.bitEqual;
        continue;
      }
      std::string ex = "output " + std::to_string(o) + " element " + std::to_string(k) + operandsAt(g, in, k, a.type) +
                       ": torchtv " + fmt(x) + ", ATen " + fmt(y) + where;
      bool special = std::isnan(x) || std::isnan(y) || std::isinf(x) || std::isinf(y) || !isFloating(d);
      if (special) {
        disagree(r, "beyond-rounding", ex);
        continue;
      }
      double u = ulpDistance(x, y, d);
      r.maxUlp = std::max(r.maxUlp, u);
      if (bitwise) disagree(r, "not-bitwise", ex);
      else if (u > kUlps && std::fabs(x - y) > tol) disagree(r, "beyond-rounding", ex);
    }
  }
}

// ATen's kernel on the whole tensor vs element by element (0-dim operands).
void positionCheck(Result &r, const AuditCase &c, const std::string &dtype, const Graph &g,
                   const std::vector<ConcreteTensor> &in, const Outcome &whole) {
  if (!whole.error.empty()) return;
  auto scalarModule = parseCase(c, dtype, "[]");
  const Graph &s = *scalarModule->find("g");
  size_t n = in.at(0).values.size();
  for (size_t k = 0; k < n; ++k) {
    std::vector<ConcreteTensor> one;
    for (const ConcreteTensor &t : in) one.push_back({{t.type.dtype, {}}, {t.values[k]}});
    Outcome e = runTorch(s, one);
    if (!e.error.empty()) continue;
    double x = whole.values[0].values[k], y = e.values[0].values[0];
    if (!sameBits(x, y)) {
      disagree(r, "position-dependent",
               "element " + std::to_string(k) + operandsAt(g, in, k, whole.values[0].type) + ": ATen gives " + fmt(x) +
                   " in the tensor, " + fmt(y) + " alone");
      return;
    }
  }
}

std::string labelOf(const AuditCase &c) {
  size_t at = c.graph.find(c.op + "(");
  std::string label = c.op;
  if (at == std::string::npos) return label;
  size_t eol = c.graph.find('\n', at);
  std::string line = c.graph.substr(at, eol - at);
  size_t brace = line.find(" {");
  if (brace != std::string::npos) label += line.substr(brace);
  if (c.shapes.size() == 1 && c.graph.find("[3,1,5]") != std::string::npos) label += " (broadcast)";
  return label;
}

// The definitions a case without semantics of its own is expanded through:
// the bundled ones, and the candidates of `--fusions DIR` (tried first).
FusionLibrary &definitions() {
  static FusionLibrary lib;
  return lib;
}

bool byDefinition(const std::string &op) { return !sem::hasSemantics(op) && definitions().find(op); }

// The case's graph with every definition expanded (Note [Auditing definitions]).
std::unique_ptr<Module> expandedCase(const AuditCase &c, const std::string &dtype, const std::string &shape) {
  auto m = parseCase(c, dtype, shape);
  NormalizeOptions opts;
  normalizeGraph(*m->find("g"), definitions(), opts);
  return m;
}

Result runCase(const AuditCase &c, const std::string &dtype, uint64_t seed) {
  Result r;
  r.label = labelOf(c);
  r.dtype = dtype;
  bool modeKnown = false;
  for (size_t si = 0; si < c.shapes.size(); ++si) {
    std::unique_ptr<Module> m;
    try {
      m = parseCase(c, dtype, c.shapes[si]);
    } catch (const std::exception &e) {
      disagree(r, "not-run", std::string("the graph does not build: ") + e.what());
      return r;
    }
    const Graph &g = *m->find("g");
    const Node &node = *g.nodes().front();
    std::unique_ptr<Module> expanded;
    if (byDefinition(node.op)) {
      try {
        expanded = expandedCase(c, dtype, c.shapes[si]);
      } catch (const std::exception &e) {
        disagree(r, "not-run", std::string("the definition does not expand: ") + e.what());
        return r;
      }
      r.mode = Mode::RealOnly;
      r.note = "by definition (real level)";
      modeKnown = true;
    }
    const Graph &evaluated = expanded ? *expanded->find("g") : g;
    if (!modeKnown) {
      try {
        r.mode = modeOf(g, node);
      } catch (const std::exception &e) {
        disagree(r, "no-semantics", e.what());
        return r;
      }
      modeKnown = true;
      if (r.mode == Mode::RealOnly) r.note = bitwiseUnfaithfulReason(node);
      if (r.mode == Mode::FormulaAroundAtom)
        disagree(r, "formula-around-atom",
                 "the term computes around an uninterpreted function, which this audit cannot check bit for bit");
    }
    if (node.op != "prim::constant" && !canReplay(*node.schema)) {
      r.notRun = "LibTorch has no " + node.op;
      return r;
    }
    for (int draw = 0; draw < kRandomDraws + kSpecialDraws + kTieDraws; ++draw) {
      DrawKind kind = draw < kRandomDraws ? DrawKind::Random
                      : draw < kRandomDraws + kSpecialDraws ? DrawKind::Special
                                                              : DrawKind::Ties;
      // Seeded by what the draw is, so that adding a case leaves the others' draws alone.
      std::seed_seq seq{seed, static_cast<uint64_t>(std::hash<std::string>{}(r.label + "|" + dtype + "|" + c.shapes[si])),
                        static_cast<uint64_t>(draw)};
      std::mt19937_64 rng(seq);
      std::vector<ConcreteTensor> in;
      for (const Value *v : g.inputs())
        in.push_back({v->type, drawValues(*v, static_cast<size_t>(numel(v->type.shape).value_or(0)), kind, rng)});
      ++r.draws;
      Outcome at = runTorch(g, in), tv = runTorchtv(evaluated, in);
      compare(r, g, in, tv, at, kind);
      if (c.elementwise && r.mode == Mode::Atom && si == 0) positionCheck(r, c, dtype, g, in, at);
    }
  }
  if (r.evaluated == 0 && r.kind.empty() && r.notRun.empty()) disagree(r, "not-run", "no draw evaluated");
  return r;
}

std::string agreement(const Result &r) {
  if (!r.notRun.empty() && r.evaluated == 0) return "not run: " + r.notRun;
  if (r.mode == Mode::Formula && r.kind.empty()) return "bitwise";
  if (r.kind.empty() || r.kind == "formula-around-atom") {
    if (r.bitEqual == r.elements) return "bitwise";
    char buf[96];
    if (r.maxUlp <= kUlps) std::snprintf(buf, sizeof buf, "within %g ulp", r.maxUlp);
    else std::snprintf(buf, sizeof buf, "within %g eps of the inputs' scale (max %g ulp)", kEpsilons, r.maxUlp);
    return buf;
  }
  return "DISAGREE (" + r.kind + ")";
}

// ---- known disagreements: `op dtype|* kind reason...`

struct Known {
  std::string op, dtype, kind, reason;
  bool used = false;
};

std::vector<Known> readKnown(const std::string &path) {
  std::vector<Known> out;
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Known k;
    s >> k.op >> k.dtype >> k.kind;
    std::getline(s, k.reason);
    k.reason.erase(0, k.reason.find_first_not_of(' '));
    if (k.reason.empty()) throw std::runtime_error(path + ": an entry without a reason: " + line);
    out.push_back(k);
  }
  return out;
}

Known *findKnown(std::vector<Known> &known, const Result &r, const std::string &op) {
  for (Known &k : known)
    if (k.op == op && (k.dtype == "*" || k.dtype == r.dtype) && k.kind == r.kind) return &k;
  return nullptr;
}

// tests/audit/decomposition_cases.txt: blocks of
//   case OP DTYPE,DTYPE,... SHAPE;SHAPE;...|- [elementwise]
//   (%x: $T$S) -> ($T$S) {
//     ...
//   }
// (`-`: the graph has fixed shapes). `#` lines are comments.
std::vector<AuditCase> readCaseFile(const std::string &path) {
  std::vector<AuditCase> out;
  std::ifstream f(path);
  if (!f) return out;  // no generated definitions
  std::string line;
  auto split = [](const std::string &s, char sep) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    for (std::string p; std::getline(in, p, sep);) parts.push_back(p);
    return parts;
  };
  while (std::getline(f, line)) {
    if (line.rfind("case ", 0) != 0) continue;
    std::istringstream head(line.substr(5));
    AuditCase c;
    std::string dtypes, shapes, flag;
    head >> c.op >> dtypes >> shapes >> flag;
    c.dtypes = split(dtypes, ',');
    c.shapes = shapes == "-" ? std::vector<std::string>{""} : split(shapes, ';');
    c.elementwise = flag == "elementwise";
    while (std::getline(f, line)) {
      c.graph += line + "\n";
      if (line == "}") break;
    }
    c.graph.pop_back();
    out.push_back(std::move(c));
  }
  return out;
}

// Whether the bundled generated definitions (fusions/decompositions.tvir) define `op`.
bool generatedDefinition(const std::string &op) {
  static const std::set<std::string> ops = [] {
    std::set<std::string> s;
    std::ifstream f(FusionLibrary::bundledDirectory() + "/decompositions.tvir");
    for (std::string line; std::getline(f, line);)
      if (line.rfind("graph @", 0) == 0) s.insert(line.substr(7, line.find('(') - 7));
    return s;
  }();
  return ops.count(op) > 0;
}

}  // namespace

int run(int argc, char **argv) {
  std::string knownPath = std::string(TORCHTV_SOURCE_DIR) + "/tests/audit/known_disagreements.txt", outPath, only;
  std::string casesPath = std::string(TORCHTV_SOURCE_DIR) + "/tests/audit/decomposition_cases.txt", candidates;
  bool casesOnly = false;
  uint64_t seed = 0x5eed;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--cases-only") {
      casesOnly = true;
      continue;
    }
    if (i + 1 >= argc) break;
    if (a == "--known") knownPath = argv[++i];
    else if (a == "--out") outPath = argv[++i];
    else if (a == "--only") only = argv[++i];
    else if (a == "--seed") seed = std::stoull(argv[++i]);
    else if (a == "--cases") casesPath = argv[++i];
    else if (a == "--fusions") candidates = argv[++i];
  }
  if (!candidates.empty()) definitions().loadDirectory(candidates, FusionOrigin::Bundled);
  definitions().loadDirectory(FusionLibrary::bundledDirectory(), FusionOrigin::Bundled);
  std::vector<Known> known = readKnown(knownPath);
  std::ostringstream table;
  table << "op\tdtype\tmode\tdraws\tagreement\tnote\n";
  int failures = 0, rows = 0;
  std::set<std::string> covered;
  std::vector<AuditCase> cases = casesOnly ? std::vector<AuditCase>{} : auditCases();
  for (AuditCase &c : readCaseFile(casesPath)) cases.push_back(std::move(c));
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const AuditCase &c = cases[ci];
    if (!only.empty() && c.op != only) continue;
    covered.insert(c.op);
    for (const std::string &dtype : c.dtypes) {
      Result r;
      try {
        r = runCase(c, dtype, seed);
      } catch (const ReplayUnavailable &e) {
        std::cerr << "semantics audit: " << e.what() << "\n";
        return 1;
      }
      ++rows;
      std::string note = r.note;
      if (!r.kind.empty()) {
        Known *k = findKnown(known, r, c.op);
        if (k) {
          k->used = true;
          note = "known: " + k->reason + (note.empty() ? "" : "; " + note);
        } else {
          ++failures;
          note = "UNLISTED: " + r.example + (note.empty() ? "" : "; " + note);
        }
        if (k && !r.example.empty()) note += " [" + r.example + "]";
      }
      table << r.label << "\t" << dtype << "\t" << modeName(r.mode) << "\t" << r.draws << "\t" << agreement(r) << "\t"
            << note << "\n";
    }
  }
  // Every op with semantics has a case.
  if (only.empty() && !casesOnly) {
    for (const OpInfo &info : allOps()) {
      const std::string &op = info.schema->name;
      if (!(sem::hasSemantics(op) || generatedDefinition(op)) || covered.count(op)) continue;
      ++failures;
      table << op << "\t-\t-\t0\tNO CASE\tUNLISTED: the audit has no case for this op\n";
    }
  }
  for (const Known &k : known)
    if (!k.used && only.empty() && !casesOnly) table << "# stale entry in known_disagreements.txt: " << k.op << " " << k.dtype << " " << k.kind << "\n";
  table << "# " << rows << " rows, " << failures << " unlisted disagreement(s)\n";
  std::cout << table.str();
  if (!outPath.empty()) std::ofstream(outPath) << table.str();
  return failures ? 1 : 0;
}

}  // namespace torchtv::audit

int main(int argc, char **argv) { return torchtv::audit::run(argc, argv); }
