#include "src/sem/normal_form.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include <boost/multiprecision/cpp_int.hpp>

#include "src/sem/derived.h"

namespace torchtv::sem {

namespace {

using Rat = boost::multiprecision::cpp_rational;
using BigInt = boost::multiprecision::cpp_int;

constexpr size_t kMaxMonomials = 4000;
// Monomial products and sums one normal form may compute in all. Expanding
// products of sums is exponential in the worst case (an unfused attention
// backward reached 14 GB before this cap): past it the term is undecided.
constexpr size_t kMaxWork = 1000000;
// The bytes of atom keys one normal form may build in all. A key spells out its arguments' normal
// forms, so each level of nesting (a LayerNorm's rsqrt of a sum over the previous layer's output)
// multiplies its length: widened to the inputs of a three-layer network, the keys alone passed
// 20 GB before this cap. Past it the term is undecided.
constexpr size_t kMaxKeyBytes = size_t(64) << 20;
// The largest integer exponent a constant power is expanded to (Note [Powers and logarithms of
// other bases]).
const Rat kMaxIntegerPower = 64;
// An atom's text (in the assumptions it names) is the first characters of its
// term's text (Note [Bounded term printing] in term.cpp).
constexpr size_t kAtomTextChars = 100;

Rat ratOfDouble(double v) {
  if (!std::isfinite(v)) throw Unsupported("a non-finite constant has no real value");
  if (v == 0) return Rat(0);
  int e = 0;
  double m = std::frexp(v, &e);  // v = m * 2^e, 0.5 <= |m| < 1
  auto mant = static_cast<int64_t>(std::ldexp(m, 53));
  e -= 53;
  BigInt num = mant, den = 1;
  if (e >= 0) num <<= e;
  else den <<= -e;
  return Rat(num, den);
}

// Rat::str ("n" or "n/d"), spelled by std::to_string when both fit in 64
// bits: the keys write an exponent or a coefficient for every factor and
// monomial, nearly all small, and boost's general conversion divides.
std::string ratStr(const Rat &r) {
  const BigInt &num = numerator(r), &den = denominator(r);
  if (msb(abs(num) + 1) >= 63 || msb(den) >= 63) return r.str();
  std::string s = std::to_string(static_cast<int64_t>(num));
  if (den != 1) s += "/" + std::to_string(static_cast<int64_t>(den));
  return s;
}

// The d-th root of a non-negative integer when it is an integer (binary
// search; only for numbers of up to 256 bits, beyond which it gives up).
std::optional<BigInt> exactIntegerRoot(const BigInt &x, unsigned d) {
  if (x < 2) return x;
  if (msb(x) >= 256) return std::nullopt;
  BigInt lo = 1, hi = BigInt(1) << (msb(x) / d + 1);
  while (lo <= hi) {
    BigInt mid = (lo + hi) / 2, p = pow(mid, d);
    if (p == x) return mid;
    if (p < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return std::nullopt;
}

// Note [Exact powers of constants]
// c^(n/d) for a positive rational c whose numerator and denominator are exact
// d-th powers is itself rational: rsqrt(16) = 1/4. Computing it keeps
// 1/sqrt(E) of an attention's default scale (a sum of E ones under rsqrt)
// equal to the constant 0.25 that a traced graph holds, without Z3.
std::optional<Rat> exactRationalPower(const Rat &c, const Rat &e) {
  if (c <= 0 || denominator(e) > 64 || abs(numerator(e)) > 64) return std::nullopt;
  auto d = static_cast<unsigned>(denominator(e));
  auto n = exactIntegerRoot(numerator(c), d), m = exactIntegerRoot(denominator(c), d);
  if (!n || !m) return std::nullopt;
  Rat root(*n, *m), out = 1;
  Rat base = numerator(e) > 0 ? root : Rat(1) / root;
  for (BigInt i = 0; i < abs(numerator(e)); ++i) out *= base;
  return out;
}

struct Atom;
using AtomPtr = std::shared_ptr<const Atom>;

struct Factor {
  AtomPtr atom;
  Rat exp;
};

struct Monomial {
  std::vector<Factor> factors;  // sorted by atom key, exponents non-zero
  std::string key;
};

struct Poly {
  std::map<std::string, std::pair<Monomial, Rat>> terms;
};

enum class AtomKind { Read, IndexCond, Indicator, Fn, Base, Sum };

struct Atom {
  AtomKind kind = AtomKind::Read;
  std::string name;  // Fn/Indicator op, Read slot
  int slot = -1;     // Read of a tensor
  std::vector<IndexExpr> index;
  std::vector<Poly> args;
  Monomial body;  // Sum
  int binder = -1;
  Dim extent = 0;
  int height = 0;
  bool positive = false;   // known > 0 over the reals
  bool indicator = false;  // takes values 0 and 1 only
  std::vector<int> freeVars;
  std::string key;
  std::string text;  // for assumptions
};

std::string polyKey(const Poly &p) {
  std::string k = "{";
  for (auto &[mk, mc] : p.terms) k += ratStr(mc.second) + "*" + mk + ";";
  return k + "}";
}

bool mentions(const Atom &a, int v) { return std::binary_search(a.freeVars.begin(), a.freeVars.end(), v); }

}  // namespace

struct NormalForm::Impl {
  TermContext &tc;
  std::unordered_map<int, Poly> memo;
  size_t work = 0;  // see kMaxWork
  size_t keyBytes = 0;  // see kMaxKeyBytes
  Assumptions assumptions;
  // Sum atoms' bodies shifted by their extent, by the atom's key (Note [Merging split sums cheaply]).
  std::unordered_map<std::string, Monomial> shiftedSumBodies;
  const IndexRanges *inRange = nullptr;  // Note [Indicators that cover a range]
  Impl(TermContext &t, const IndexRanges *r) : tc(t), inRange(r) {}

  // ---- construction ----
  AtomPtr finish(Atom a) {
    std::vector<int> fv;
    int h = 0;
    auto addPoly = [&](const Poly &p) {
      for (auto &[k, mc] : p.terms)
        for (const Factor &f : mc.first.factors) {
          fv.insert(fv.end(), f.atom->freeVars.begin(), f.atom->freeVars.end());
          h = std::max(h, f.atom->height);
        }
    };
    for (const IndexExpr &e : a.index) e.collectVars(fv);
    for (const Poly &p : a.args) addPoly(p);
    for (const Factor &f : a.body.factors) {
      fv.insert(fv.end(), f.atom->freeVars.begin(), f.atom->freeVars.end());
      h = std::max(h, f.atom->height);
    }
    std::sort(fv.begin(), fv.end());
    fv.erase(std::unique(fv.begin(), fv.end()), fv.end());
    if (a.kind == AtomKind::Sum) {
      fv.erase(std::remove(fv.begin(), fv.end(), a.binder), fv.end());
      h += 1;
    }
    a.freeVars = fv;
    a.height = h;
    std::string k = std::to_string(static_cast<int>(a.kind)) + ":" + a.name + "[";
    for (const IndexExpr &e : a.index) k += e.key() + ",";
    k += "](";
    for (const Poly &p : a.args) k += polyKey(p) + ",";
    k += ")";
    if (a.kind == AtomKind::Sum) k += "S" + std::to_string(a.binder) + "<" + a.extent.str() + ">" + a.body.key;
    spendKeyBytes(k.size());
    a.key = k;
    if (a.text.empty()) a.text = k.size() > 120 ? k.substr(0, 117) + "..." : k;
    return std::make_shared<const Atom>(std::move(a));
  }

  // op(a, b) for integer constants a and b of dtype d that d holds without wrapping; nullopt
  // otherwise.
  static std::optional<bool> compareIntegerConstants(TOp op, DType d, const Poly &a, const Poly &b) {
    auto x = integerConstant(a), y = integerConstant(b);
    if (!x || !y || !(isIntegral(d) || d == DType::Bool) || d == DType::U64) return std::nullopt;
    int bits = d == DType::Bool ? 1 : dtypeBits(d);
    bool isSigned = d != DType::Bool && d != DType::U8;
    Rat lo = isSigned ? -Rat(BigInt(1) << (bits - 1)) : Rat(0);
    Rat hi = isSigned ? Rat((BigInt(1) << (bits - 1)) - 1) : Rat((BigInt(1) << bits) - 1);
    for (const Rat &v : {*x, *y})
      if (v < lo || v > hi) return std::nullopt;
    return compareWith(op, *x, *y);
  }

  // The value of a polynomial without atoms (0 for the zero polynomial); nullopt otherwise.
  static std::optional<Rat> rationalConstant(const Poly &p) {
    if (p.terms.empty()) return Rat(0);
    if (p.terms.size() != 1 || !p.terms.begin()->second.first.factors.empty()) return std::nullopt;
    return p.terms.begin()->second.second;
  }
  static std::optional<Rat> integerConstant(const Poly &p) {
    auto c = rationalConstant(p);
    if (!c || denominator(*c) != 1) return std::nullopt;
    return c;
  }

  static Poly constant(const Rat &c) {
    Poly p;
    if (c != 0) p.terms[""] = {Monomial{}, c};
    return p;
  }
  static Poly ofAtom(AtomPtr a, const Rat &e = 1) {
    Poly p;
    Monomial m;
    m.factors.push_back({std::move(a), e});
    m.key = m.factors[0].atom->key + "^" + ratStr(e) + "*";  // as mulMono writes it
    p.terms[m.key] = {m, Rat(1)};
    return p;
  }
  static void addTerm(Poly &p, const Monomial &m, const Rat &c) {
    if (c == 0) return;
    auto it = p.terms.find(m.key);
    if (it == p.terms.end()) p.terms.emplace(m.key, std::make_pair(m, c));
    else {
      it->second.second += c;
      if (it->second.second == 0) p.terms.erase(it);
    }
    if (p.terms.size() > kMaxMonomials) throw Unsupported("the real normal form grew past " + std::to_string(kMaxMonomials) + " monomials", Gap::TooLarge);
  }
  static Poly add(const Poly &a, const Poly &b, const Rat &scaleB = 1) {
    Poly r = a;
    for (auto &[k, mc] : b.terms) addTerm(r, mc.first, mc.second * scaleB);
    return r;
  }
  static Poly scale(const Poly &a, const Rat &c) { return add(Poly{}, a, c); }

  void assume(const Atom &a, Assumption::Kind kind) { assumptions.insert(Assumption::about(kind, a.text)); }

  static Monomial monoOf(const AtomPtr &a, const Rat &e) {
    Monomial m;
    m.factors.push_back({a, e});
    m.key = a->key + "^" + ratStr(e) + "*";
    return m;
  }

  // Product of monomials, merging exponents of equal atoms (Note [Real normal form]).
  Monomial mulMono(const Monomial &x, const Monomial &y) {
    std::vector<Factor> fs = x.factors;
    fs.insert(fs.end(), y.factors.begin(), y.factors.end());
    std::sort(fs.begin(), fs.end(), [](const Factor &a, const Factor &b) { return a.atom->key < b.atom->key; });
    Monomial m;
    for (const Factor &f : fs) {
      if (!m.factors.empty() && m.factors.back().atom->key == f.atom->key) {
        Factor &g = m.factors.back();
        bool bothNatural = g.exp > 0 && f.exp > 0 && denominator(g.exp) == 1 && denominator(f.exp) == 1;
        if (g.atom->indicator && bothNatural) continue;  // c * c = c
        if (!bothNatural && !g.atom->positive) {
          bool integral = denominator(g.exp) == 1 && denominator(f.exp) == 1;
          assume(*g.atom, integral ? Assumption::Kind::Nonzero : Assumption::Kind::Positive);
        }
        g.exp += f.exp;
      } else {
        m.factors.push_back(f);
      }
    }
    m.factors.erase(std::remove_if(m.factors.begin(), m.factors.end(), [](const Factor &f) { return f.exp == 0; }),
                    m.factors.end());
    for (const Factor &f : m.factors) m.key += f.atom->key + "^" + ratStr(f.exp) + "*";
    spendKeyBytes(m.key.size());
    return m;
  }

  void spendKeyBytes(size_t bytes) {
    keyBytes += bytes;
    if (keyBytes > kMaxKeyBytes)
      throw Unsupported("the real normal form's terms nest too deeply (their keys passed " +
                        std::to_string(kMaxKeyBytes >> 20) + " MB)");
  }

  // Note [Exclusive indicators]
  // A product of [x == k1] and [x == k2] for different constants k1, k2 is 0: a value equals one
  // constant at most. Without this, a chain select(x == 0, a0, select(x == 1, a1, ...)) over K
  // classes (an advanced index, a gather's position test) expands to 2^K monomials, where it is K.
  // Integer tests are cmp_eq atoms of (x, k); floating ones eq indicators of x - k.
  static bool exclusiveIndicators(const Monomial &m) {
    auto exclusive = [](const Atom &p, const Atom &q) {
      if (p.name != q.name || p.args.size() != q.args.size()) return false;
      if (p.kind == AtomKind::Indicator && p.name == "eq" && p.args.size() == 1) {
        auto diff = rationalConstant(add(p.args[0], q.args[0], Rat(-1)));
        return diff && *diff != 0;
      }
      if (p.kind != AtomKind::Fn || p.name.rfind("cmp_eq_", 0) != 0 || p.args.size() != 2) return false;
      for (int i : {0, 1})
        for (int j : {0, 1}) {
          if (polyKey(p.args[i]) != polyKey(q.args[j])) continue;
          auto kp = rationalConstant(p.args[1 - i]), kq = rationalConstant(q.args[1 - j]);
          if (kp && kq && *kp != *kq) return true;
        }
      return false;
    };
    for (size_t i = 0; i < m.factors.size(); ++i)
      for (size_t j = i + 1; j < m.factors.size(); ++j)
        if (m.factors[i].exp > 0 && m.factors[j].exp > 0 && exclusive(*m.factors[i].atom, *m.factors[j].atom))
          return true;
    return false;
  }

  // [v == k] for v a read of a tensor in `inRange` and k a point of its range: (v's key, k, the
  // range); nullopt for any other atom (Note [Indicators that cover a range]).
  struct RangeTest {
    std::string read;
    int64_t point;
    const IndexRange *range;
  };
  std::optional<RangeTest> rangeTest(const Atom &a) const {
    if (a.kind != AtomKind::Fn || a.name.rfind("cmp_eq_", 0) != 0 || a.args.size() != 2) return std::nullopt;
    for (int i : {0, 1}) {
      const Poly &v = a.args[i];
      auto k = integerConstant(a.args[1 - i]);
      if (!k || v.terms.size() != 1) continue;
      const auto &[m, c] = v.terms.begin()->second;
      if (c != 1 || m.factors.size() != 1 || m.factors[0].exp != 1) continue;
      const Atom &read = *m.factors[0].atom;
      auto r = read.kind == AtomKind::Read ? inRange->find(read.slot) : inRange->end();
      if (r == inRange->end() || abs(numerator(*k)) > BigInt(std::numeric_limits<int64_t>::max())) continue;
      auto point = static_cast<int64_t>(numerator(*k));
      if (r->second.contains(point)) return RangeTest{read.key, point, &r->second};
    }
    return std::nullopt;
  }

  // Note [Indicators that cover a range]
  Poly coverRanges(Poly p) const {
    if (!inRange || inRange->empty()) return p;
    struct Group {
      Monomial rest;
      Rat coefficient;
      const IndexRange *range = nullptr;
      std::map<int64_t, std::string> members;  // point -> monomial key
    };
    for (bool changed = true; changed;) {
      changed = false;
      std::map<std::string, Group> groups;  // by read, rest and coefficient
      for (auto &[key, mc] : p.terms) {
        const auto &[m, c] = mc;
        for (size_t i = 0; i < m.factors.size(); ++i) {
          if (m.factors[i].exp != 1) continue;
          auto test = rangeTest(*m.factors[i].atom);
          if (!test) continue;
          Monomial rest;
          for (size_t j = 0; j < m.factors.size(); ++j)
            if (j != i) rest.factors.push_back(m.factors[j]);
          for (const Factor &f : rest.factors) rest.key += f.atom->key + "^" + ratStr(f.exp) + "*";
          Group &g = groups[test->read + "|" + rest.key + "|" + ratStr(c)];
          g.rest = std::move(rest);
          g.coefficient = c;
          g.range = test->range;
          g.members.emplace(test->point, key);
        }
      }
      for (auto &[gk, g] : groups) {
        if (g.members.size() != static_cast<size_t>(g.range->bound) + g.range->alsoDefined.size()) continue;
        // a monomial of two complete groups is taken by the first; the second is looked at again
        if (std::any_of(g.members.begin(), g.members.end(), [&](const auto &m) { return !p.terms.count(m.second); }))
          continue;
        for (const auto &[point, key] : g.members) p.terms.erase(key);
        addTerm(p, g.rest, g.coefficient);
        changed = true;
      }
    }
    return p;
  }

  void spend(size_t units) {
    work += units;
    if (work > kMaxWork)
      throw Unsupported("the real normal form needed more than " + std::to_string(kMaxWork) + " monomial operations",
                        Gap::TooLarge);
  }

  Poly mul(const Poly &a, const Poly &b) {
    spend(a.terms.size() * b.terms.size());
    Poly r;
    for (auto &[ka, ma] : a.terms)
      for (auto &[kb, mb] : b.terms) {
        Monomial m = mulMono(ma.first, mb.first);
        if (!exclusiveIndicators(m)) addTerm(r, m, ma.second * mb.second);
      }
    return r;
  }

  // p = a * q for a the product of the positive atoms common to every monomial of a sum p, each
  // to its least exponent: (a, q); nullopt when p is no sum or has no such atom.
  std::optional<std::pair<Monomial, Poly>> splitCommonPositive(const Poly &p) {
    if (p.terms.size() < 2) return std::nullopt;
    Monomial common, inverse;
    for (const Factor &f : p.terms.begin()->second.first.factors) {
      if (!f.atom->positive) continue;
      Rat least = f.exp;
      bool everywhere = true;
      for (auto &[k, mc] : p.terms) {
        auto it = std::find_if(mc.first.factors.begin(), mc.first.factors.end(),
                               [&](const Factor &g) { return g.atom->key == f.atom->key; });
        if (it == mc.first.factors.end()) everywhere = false;
        else least = std::min(least, it->exp);
      }
      if (!everywhere) continue;
      common = mulMono(common, monoOf(f.atom, least));
      inverse = mulMono(inverse, monoOf(f.atom, -least));
    }
    if (common.factors.empty()) return std::nullopt;
    Poly rest;
    for (auto &[k, mc] : p.terms) addTerm(rest, mulMono(mc.first, inverse), mc.second);
    return std::make_pair(std::move(common), std::move(rest));
  }

  // p^e for a rational e.
  Poly power(const Poly &p, const Rat &e, const std::string &text) {
    if (e == 0) return constant(1);
    if (denominator(e) == 1 && e > 0 && e <= 4) {
      Poly r = constant(1);
      for (int i = 0; i < static_cast<int>(numerator(e)); ++i) r = mul(r, p);
      return r;
    }
    if (p.terms.empty()) throw Unsupported("a power of zero");
    // (a^x * q)^e = a^(x*e) * q^e for a positive atom a common to every monomial: softmax's
    // exp(-max) leaves its sums.
    if (auto split = splitCommonPositive(p)) {
      Monomial common;
      for (const Factor &f : split->first.factors) common = mulMono(common, monoOf(f.atom, f.exp * e));
      Poly out;
      addTerm(out, common, Rat(1));
      return mul(out, power(split->second, e, text));
    }
    if (p.terms.size() == 1) {
      const auto &[m, c] = p.terms.begin()->second;
      bool integral = denominator(e) == 1;
      bool single = m.factors.size() == 1 && m.factors[0].exp == 1;
      if (integral || (single && c == 1) || m.factors.empty()) {
        Rat ce;
        if (integral) {
          // c^e for an integer e.
          Rat base = e > 0 ? c : Rat(1) / c;
          ce = 1;
          for (BigInt i = 0; i < abs(numerator(e)); ++i) ce *= base;
        } else if (c == 1) {
          ce = 1;
        } else if (auto exact = m.factors.empty() ? exactRationalPower(c, e) : std::nullopt) {
          ce = *exact;
        } else {
          return ofAtom(baseAtom(p, text), e);
        }
        Monomial r;
        for (const Factor &f : m.factors) {
          Monomial one;
          one.factors.push_back({f.atom, f.exp * e});
          if (!integral && !f.atom->positive) assume(*f.atom, Assumption::Kind::Positive);
          if (integral && e < 0 && !f.atom->positive) assume(*f.atom, Assumption::Kind::Nonzero);
          one.key = f.atom->key + "^" + ratStr(f.exp * e) + "*";
          r = mulMono(r, one);
        }
        Poly out;
        addTerm(out, r, ce);
        return out;
      }
    }
    return ofAtom(baseAtom(p, text), e);
  }

  // Every monomial is >= 0 (a positive coefficient, factors positive or even powers) and one is
  // > 0 (all its factors positive; a constant is such a monomial).
  bool obviouslyPositive(const Poly &p) {
    bool somePositive = false;
    for (auto &[k, mc] : p.terms) {
      if (mc.second <= 0) return false;
      bool strictly = true;
      for (const Factor &f : mc.first.factors) {
        bool even = denominator(f.exp) == 1 && numerator(f.exp) % 2 == 0;
        if (!f.atom->positive && !even) return false;
        strictly = strictly && f.atom->positive;
      }
      somePositive = somePositive || strictly;
    }
    return somePositive;
  }

  AtomPtr baseAtom(const Poly &p, const std::string &text) {
    Atom a;
    a.kind = AtomKind::Base;
    a.args = {p};
    a.positive = obviouslyPositive(p);
    a.text = "(" + text + ")";
    return finish(std::move(a));
  }

  Poly fn(const std::string &name, std::vector<Poly> args, bool positive = false, const std::string &text = "") {
    Atom a;
    a.kind = AtomKind::Fn;
    a.name = name;
    a.args = std::move(args);
    a.positive = positive;
    a.indicator = name.rfind("cmp_", 0) == 0;
    a.text = text.empty() ? name + "(...)" : text;
    return ofAtom(finish(std::move(a)));
  }

  // exp(sum c_i M_i) = prod exp(M_i)^c_i
  // The positive atom a when the monomial is exactly log(a).
  static AtomPtr logOfPositive(const Monomial &m) {
    if (m.factors.size() != 1 || m.factors[0].exp != 1) return nullptr;
    const Atom &l = *m.factors[0].atom;
    if (l.kind != AtomKind::Fn || l.name != "log" || l.args.size() != 1 || l.args[0].terms.size() != 1) return nullptr;
    const auto &[inner, c] = l.args[0].terms.begin()->second;
    if (c != 1 || inner.factors.size() != 1 || inner.factors[0].exp != 1 || !inner.factors[0].atom->positive)
      return nullptr;
    return inner.factors[0].atom;
  }

  // P when the monomial is exactly log(P) for a polynomial P of several terms that is positive
  // for every value of its atoms (a softmax's sum of exps: log_softmax's exp is softmax).
  const Poly *logOfPositiveSum(const Monomial &m) {
    if (m.factors.size() != 1 || m.factors[0].exp != 1) return nullptr;
    const Atom &l = *m.factors[0].atom;
    if (l.kind != AtomKind::Fn || l.name != "log" || l.args.size() != 1 || l.args[0].terms.size() < 2) return nullptr;
    return obviouslyPositive(l.args[0]) ? &l.args[0] : nullptr;
  }

  // The positive rational q when the monomial is exactly log(q).
  static std::optional<Rat> logOfConstant(const Monomial &m) {
    if (m.factors.size() != 1 || m.factors[0].exp != 1) return std::nullopt;
    const Atom &l = *m.factors[0].atom;
    if (l.kind != AtomKind::Fn || l.name != "log" || l.args.size() != 1) return std::nullopt;
    auto q = rationalConstant(l.args[0]);
    if (!q || *q <= 0) return std::nullopt;
    return q;
  }

  Poly expOf(const Poly &p) {
    Poly r = constant(1);
    for (auto &[k, mc] : p.terms) {
      if (AtomPtr a = logOfPositive(mc.first)) {  // exp(c * log a) = a^c for a > 0
        r = mul(r, ofAtom(a, mc.second));
        continue;
      }
      if (const Poly *positive = logOfPositiveSum(mc.first)) {  // exp(c * log P) = P^c for P > 0
        r = mul(r, power(*positive, mc.second, "a sum of positive terms"));
        continue;
      }
      auto q = logOfConstant(mc.first);  // exp(n * log q) = q^n, exact for an integer n
      if (q && denominator(mc.second) == 1 && abs(mc.second) <= kMaxIntegerPower) {
        r = mul(r, power(constant(*q), mc.second, "const"));
        continue;
      }
      Poly m;
      addTerm(m, mc.first, Rat(1));
      Atom a;
      a.kind = AtomKind::Fn;
      a.name = "exp";
      a.args = {m};
      a.positive = true;
      a.text = "exp(...)";
      r = mul(r, ofAtom(finish(std::move(a)), mc.second));
    }
    return r;
  }

  // log(x * y) = log(x) + log(y) for factors known positive; log(exp(a)) = a; the log of a power
  // atom of a sum P is the log of P (Note [Real normal form]).
  Poly logOfPositiveAtom(const Factor &f) {
    if (f.atom->kind == AtomKind::Fn && f.atom->name == "exp") return scale(f.atom->args[0], f.exp);
    if (f.atom->kind == AtomKind::Base) return scale(logOf(f.atom->args[0], f.atom->text), f.exp);
    return scale(fn("log", {ofAtom(f.atom)}, false, "log(" + f.atom->text + ")"), f.exp);
  }

  Poly logOf(const Poly &p, const std::string &text) {
    if (p.terms.size() == 1) {
      const auto &[m, c] = p.terms.begin()->second;
      bool allPositive = c > 0;
      for (const Factor &f : m.factors) allPositive = allPositive && f.atom->positive;
      if (allPositive) {
        Poly r = c == 1 ? Poly{} : fn("log", {constant(c)}, c > 1, "log(" + ratStr(c) + ")");
        for (const Factor &f : m.factors) r = add(r, logOfPositiveAtom(f));
        return r;
      }
    }
    // log(a * Q) = log(a) + log(Q) for a positive factor a common to the monomials of a sum:
    // both sides are defined exactly where Q > 0 (log-softmax of x - max(x)).
    if (auto split = splitCommonPositive(p)) {
      Poly r = logOf(split->second, text);
      for (const Factor &f : split->first.factors) r = add(r, logOfPositiveAtom(f));
      return r;
    }
    return fn("log", {p}, false, "log(" + text + ")");
  }

  // Indicator of d < 0 / d <= 0 / d == 0, with d scaled to a leading coefficient of 1.
  Poly indicator(const std::string &kind, Poly d) {
    if (d.terms.empty()) return constant(kind == "lt" ? 0 : 1);
    if (d.terms.size() == 1 && d.terms.begin()->second.first.factors.empty()) {
      Rat c = d.terms.begin()->second.second;
      bool v = kind == "lt" ? c < 0 : kind == "le" ? c <= 0 : c == 0;
      return constant(v ? 1 : 0);
    }
    Rat lead = d.terms.begin()->second.second;
    d = scale(d, Rat(1) / abs(lead));
    std::string k = kind;
    bool flip = false;
    if (lead < 0) {
      d = scale(d, Rat(-1));
      if (kind == "lt") { k = "le"; flip = true; }      // d < 0  <=>  not (-d <= 0)
      else if (kind == "le") { k = "lt"; flip = true; } // d <= 0 <=>  not (-d < 0)
    }
    Atom a;
    a.kind = AtomKind::Indicator;
    a.name = k;
    a.args = {d};
    a.indicator = true;
    a.text = k + "(...)";
    Poly ind = ofAtom(finish(std::move(a)));
    return flip ? add(constant(1), ind, Rat(-1)) : ind;
  }

  // An index comparison as [e <= 0] or [e == 0] with e's leading coefficient
  // positive: indices are integers, so a < b is a - b + 1 <= 0, and e <= 0 is
  // not (-e + 1 <= 0). Then [i < j] and 1 - [j <= i] are one atom.
  Poly indexCond(IndexCmpKind kind, const IndexExpr &a, const IndexExpr &b, const std::string &text) {
    IndexExpr e = a + b * -1;
    if (kind == IndexCmpKind::Lt) e = e + 1;
    bool eq = kind == IndexCmpKind::Eq;
    if (e.isConstant()) return constant((eq ? e.constantPart() == 0 : e.constantPart() <= 0) ? 1 : 0);
    bool flip = e.terms().front().second < 0;
    if (flip) e = eq ? e * -1 : e * -1 + 1;
    Atom at;
    at.kind = AtomKind::IndexCond;
    at.name = eq ? "eq" : "le";
    at.index = {e};
    at.indicator = true;
    at.text = text;
    Poly p = ofAtom(finish(std::move(at)));
    return flip && !eq ? add(constant(1), p, Rat(-1)) : p;
  }

  // ---- renaming and sums ----
  // The variable `from` replaced by `to` (a variable, or a variable plus a
  // constant: Note [Split sums merged]) in every free occurrence.
  AtomPtr substitute(const AtomPtr &a, int from, const IndexExpr &to) {
    if (!mentions(*a, from)) return a;
    Atom b = *a;
    for (IndexExpr &e : b.index) e = e.substitute(from, to, tc.vars);
    for (Poly &p : b.args) p = substitutePoly(p, from, to);
    if (b.kind == AtomKind::Sum) b.body = substituteMono(b.body, from, to);
    b.key.clear();
    return finish(std::move(b));
  }
  Monomial substituteMono(const Monomial &m, int from, const IndexExpr &to) {
    Monomial r;
    for (const Factor &f : m.factors) {
      Monomial one;
      one.factors.push_back({substitute(f.atom, from, to), f.exp});
      one.key = one.factors[0].atom->key + "^" + ratStr(f.exp) + "*";
      // A fresh binder, or a shift by a constant, is one-to-one: it never makes
      // two different factors equal, so mulMono only re-sorts here.
      r = mulMono(r, one);
    }
    return r;
  }
  Poly substitutePoly(const Poly &p, int from, const IndexExpr &to) {
    Poly r;
    for (auto &[k, mc] : p.terms) addTerm(r, substituteMono(mc.first, from, to), mc.second);
    return r;
  }
  AtomPtr rename(const AtomPtr &a, int from, int to) { return substitute(a, from, IndexExpr::var(to)); }
  Monomial renameMono(const Monomial &m, int from, int to) { return substituteMono(m, from, IndexExpr::var(to)); }
  Poly renamePoly(const Poly &p, int from, int to) { return substitutePoly(p, from, IndexExpr::var(to)); }

  // Note [Split sums merged]
  // sum_{i<a} f(i) + sum_{i<b} f(i + a) = sum_{i<a+b} f(i) over the reals: a
  // reduction split in two parts (slices of one tensor, each reduced, then
  // added) is the whole reduction. Z3 sees it only by unrolling (sums of at
  // most 16 elements), so at realistic sizes the normal form must: two
  // monomials with one coefficient that differ only in such a pair of sums
  // (concrete extents, exponent 1) become one. Tried on the results of
  // additions of at most kMaxMergeTerms monomials.
  static constexpr size_t kMaxMergeTerms = 64;

  // The one factor of m that is a sum of exponent 1 over a concrete extent, and m without it.
  static std::optional<std::pair<AtomPtr, Monomial>> splitSumFactor(const Monomial &m) {
    std::optional<std::pair<AtomPtr, Monomial>> out;
    for (size_t i = 0; i < m.factors.size(); ++i) {
      const Factor &f = m.factors[i];
      if (f.atom->kind != AtomKind::Sum || f.exp != 1 || !f.atom->extent.isConcrete()) continue;
      if (out) return std::nullopt;  // two sums: which pair is meant is not clear
      Monomial rest;
      for (size_t j = 0; j < m.factors.size(); ++j)
        if (j != i) {
          rest.factors.push_back(m.factors[j]);
          rest.key += m.factors[j].atom->key + "^" + ratStr(m.factors[j].exp) + "*";
        }
      out = std::make_pair(f.atom, rest);
    }
    return out;
  }

  // A monomial's split: its one sum factor and the rest (splitSumFactor).
  using SplitSum = std::optional<std::pair<AtomPtr, Monomial>>;

  // Whether two monomials have factors of the same kinds, names and exponents
  // (in any order): a shift or a renaming of an index keeps all three, so
  // monomials that differ in them are never one the other shifted.
  static bool sameFactorShapes(const Monomial &x, const Monomial &y) {
    if (x.factors.size() != y.factors.size()) return false;
    using Shape = std::tuple<AtomKind, const std::string *, const Rat *>;
    auto shapes = [](const Monomial &m) {
      std::vector<Shape> out;
      for (const Factor &f : m.factors) out.emplace_back(f.atom->kind, &f.atom->name, &f.exp);
      std::sort(out.begin(), out.end(), [](const Shape &p, const Shape &q) {
        if (std::get<0>(p) != std::get<0>(q)) return std::get<0>(p) < std::get<0>(q);
        if (*std::get<1>(p) != *std::get<1>(q)) return *std::get<1>(p) < *std::get<1>(q);
        return *std::get<2>(p) < *std::get<2>(q);
      });
      return out;
    };
    std::vector<Shape> sx = shapes(x), sy = shapes(y);
    for (size_t i = 0; i < sx.size(); ++i)
      if (std::get<0>(sx[i]) != std::get<0>(sy[i]) || *std::get<1>(sx[i]) != *std::get<1>(sy[i]) ||
          *std::get<2>(sx[i]) != *std::get<2>(sy[i]))
        return false;
    return true;
  }

  // x + y as one term when x = r * sum_{i<a} f(i) and y = r * sum_{i<b} f(i + a).
  std::optional<Poly> mergedSums(const SplitSum &sx, const SplitSum &sy) {
    if (!sx || !sy || sx->second.key != sy->second.key) return std::nullopt;
    const Atom &a = *sx->first, &b = *sy->first;
    Monomial other = b.binder == a.binder ? b.body : renameMono(b.body, b.binder, a.binder);
    if (!sameFactorShapes(a.body, other)) return std::nullopt;  // a shift keeps them (substituteMono)
    auto shifted = shiftedSumBodies.find(a.key);
    if (shifted == shiftedSumBodies.end())
      shifted = shiftedSumBodies
                    .emplace(a.key, substituteMono(a.body, a.binder, IndexExpr::var(a.binder) + a.extent.size()))
                    .first;
    if (shifted->second.key != other.key) return std::nullopt;
    Poly body;
    addTerm(body, a.body, Rat(1));
    Poly rest;
    addTerm(rest, sx->second, Rat(1));
    return mul(rest, sumOf(a.binder, Dim(a.extent.size() + b.extent.size()), body));
  }

  // Note [Merging split sums cheaply]
  // The search below tries every ordered pair of monomials and merges the
  // first pair that merges, in the order of the polynomial's map, then starts
  // over. Each pass splits every monomial once (not once for each pair it is
  // in), asks the cheap questions (a sum factor on both sides, the same rest)
  // before comparing coefficients (rationals: slow), and shifts a sum's body
  // once per normal form, and only for a pair whose factors have the same
  // kinds, names and exponents (sameFactorShapes): the pairs of a 64-monomial addition made this a third of a
  // 16-layer decide's instructions. Every test is a pure function of the
  // pair, so the pair found, and the result, are the ones of the plain search.
  Poly mergeSplitSums(Poly p) {
    for (bool merged = true; merged && p.terms.size() >= 2 && p.terms.size() <= kMaxMergeTerms;) {
      merged = false;
      std::vector<decltype(p.terms)::iterator> terms;
      std::vector<SplitSum> splits;
      for (auto i = p.terms.begin(); i != p.terms.end(); ++i) {
        terms.push_back(i);
        splits.push_back(splitSumFactor(i->second.first));
      }
      for (size_t i = 0; i < terms.size() && !merged; ++i)
        for (size_t j = 0; j < terms.size() && !merged; ++j) {
          if (i == j || !splits[i] || !splits[j] || splits[i]->second.key != splits[j]->second.key ||
              terms[i]->second.second != terms[j]->second.second)
            continue;
          std::optional<Poly> m = mergedSums(splits[i], splits[j]);
          if (!m) continue;
          Rat c = terms[i]->second.second;
          p.terms.erase(terms[i]);
          p.terms.erase(terms[j]);
          p = add(p, *m, c);
          merged = true;  // the iterators are spent: start over
        }
    }
    return p;
  }

  Poly sumOf(int binder, const Dim &extent, const Poly &body) {
    Poly r;
    for (auto &[k, mc] : body.terms) {
      Monomial outer, inner;
      for (const Factor &f : mc.first.factors) {
        Monomial one;
        one.factors.push_back(f);
        one.key = f.atom->key + "^" + ratStr(f.exp) + "*";
        if (mentions(*f.atom, binder)) inner = mulMono(inner, one);
        else outer = mulMono(outer, one);
      }
      Poly term;
      addTerm(term, outer, mc.second);
      if (inner.factors.empty()) {
        if (extent.isConcrete()) term = scale(term, Rat(extent.size()));
        else term = mul(term, fn("dim_" + extent.symbolName(), {}, true, extent.symbolName()));
      } else {
        int h = 0;
        for (const Factor &f : inner.factors) h = std::max(h, f.atom->height);
        int canon = tc.vars.canonical(1, h + 1, extent);
        Atom s;
        s.kind = AtomKind::Sum;
        s.binder = canon;
        s.extent = extent;
        s.body = renameMono(inner, binder, canon);
        s.text = "sum(...)";
        // A sum of positive terms over a non-empty range is positive (the
        // coefficient stays outside, in `term`).
        s.positive = extent.isConcrete() && extent.size() >= 1 &&
                     std::all_of(s.body.factors.begin(), s.body.factors.end(),
                                 [](const Factor &f) { return f.atom->positive; });
        term = mul(term, ofAtom(finish(std::move(s))));
      }
      r = add(r, term);
    }
    return r;
  }

  // ---- masked -inf (Note [Masked -inf]) ----
  struct Masked {
    Poly keep;   // indicator: the element is not -inf
    Poly value;  // its value where it is not
  };
  static bool isNegInf(TermPtr c) {
    return c->op == TOp::Const && isFloating(c->dtype) && std::isinf(c->num) && c->num < 0;
  }
  // select(c, -inf, a), and a real added to it or subtracted from it: an
  // additive mask (s + where(keep, 0, -inf), torch's decomposed sdpa) and the
  // softmax's shift (x - max) keep the element masked.
  std::optional<Masked> maskedNegInf(TermPtr t) {
    // A mask select whose condition a concrete index decided is the constant -inf itself: masked
    // everywhere (keep 0). Per element (Note [Normal forms element by element]) the scores of a
    // rank with one head, [1, T, T], read their causal mask at concrete indices.
    if (isNegInf(t)) return Masked{constant(0), constant(0)};
    // Memoized: a residual stream is a chain of adds, shared between the terms that read it.
    if (t->op != TOp::Select && t->op != TOp::Add && t->op != TOp::Sub) return std::nullopt;
    auto known = maskedMemo.find(t->id);
    if (known != maskedMemo.end()) return known->second;
    std::optional<Masked> m = maskedOf(t);
    maskedMemo.emplace(t->id, m);
    return m;
  }
  std::unordered_map<int, std::optional<Masked>> maskedMemo;
  std::optional<Masked> maskedOf(TermPtr t) {
    if (t->op == TOp::Select) {
      if (isNegInf(t->args[1])) return Masked{add(constant(1), norm(t->args[0]), Rat(-1)), norm(t->args[2])};
      if (isNegInf(t->args[2])) return Masked{norm(t->args[0]), norm(t->args[1])};
      return std::nullopt;
    }
    if (t->op == TOp::Sub)
      if (auto m = maskedNegInf(t->args[0])) return Masked{m->keep, add(m->value, norm(t->args[1]), Rat(-1))};
    if (t->op == TOp::Add)
      for (int i : {0, 1})
        if (auto m = maskedNegInf(t->args[i])) return Masked{m->keep, add(m->value, norm(t->args[1 - i]))};
    return std::nullopt;
  }
  // exp(select(c, -inf, a) + b) = (1 - c) * exp(a + b), b real (norm throws
  // unless it is).
  std::optional<Poly> maskedExp(TermPtr arg) {
    if (auto m = maskedNegInf(arg)) return mul(m->keep, expOf(m->value));
    return std::nullopt;
  }
  // Note [Rows with some element kept]
  // torch's decomposed _safe_softmax tests whether a row has an element that
  // is not -inf: any(x != -inf), which ATen's any computes as a count of
  // nonzero elements compared with 0. Over the reals every element of a real
  // row is finite, so the count of a non-empty row is positive; in a row
  // masked to -inf (Note [Masked -inf]) the elements kept are those not -inf,
  // and some is kept under the assumption that the row's max already makes.
  // So any(x != -inf) is 1, and the guard reads as the softmax it guards, as
  // _safe_softmax's own semantics does (Note [_safe_softmax] in composite.cpp).
  std::optional<Poly> someElementKept(TermPtr t, const std::string &text) {
    auto isIntZero = [](TermPtr c) { return c->op == TOp::Const && isIntegral(c->dtype) && c->inum == 0; };
    if (t->op != TOp::Ne || t->args[0]->op != TOp::Sum || !isIntZero(t->args[1])) return std::nullopt;
    TermPtr sum = t->args[0];
    if (!sum->extent.isConcrete() || sum->extent.size() <= 0) return std::nullopt;
    TermPtr counted = sum->args[0];
    if (counted->op != TOp::Cast || counted->args[0]->dtype != DType::Bool) return std::nullopt;
    TermPtr kept = counted->args[0];  // x != -inf, as ne(x, -inf) or not(eq(x, -inf))
    // The operand that is not -inf (eq and ne are commutative: TermContext orders their operands).
    auto otherThanNegInf = [](TermPtr cmp) -> TermPtr {
      for (int i : {0, 1})
        if (isNegInf(cmp->args[i])) return cmp->args[1 - i];
      return nullptr;
    };
    TermPtr x;
    if (kept->op == TOp::Ne) x = otherThanNegInf(kept);
    if (kept->op == TOp::Not && kept->args[0]->op == TOp::Eq) x = otherThanNegInf(kept->args[0]);
    if (!x || !isFloating(x->dtype)) return std::nullopt;
    if (auto m = maskedNegInf(x)) {
      if (m->keep.terms.empty()) return std::nullopt;  // -inf everywhere: no element is kept
      assumptions.insert(Assumption::about(Assumption::Kind::KeepsElement, text));
      return constant(1);
    }
    norm(x);  // throws unless x is real
    return constant(1);
  }

  // ---- terms ----
  Poly norm(TermPtr t) {
    auto it = memo.find(t->id);
    if (it != memo.end()) return it->second;
    Poly p = coverRanges(compute(t));
    spend(p.terms.size());
    memo.emplace(t->id, p);
    return p;
  }

  Poly opaque(TermPtr t, const std::string &why) {
    Atom a;
    a.kind = AtomKind::Fn;
    a.name = "term" + std::to_string(t->id);
    a.indicator = t->dtype == DType::Bool;
    a.text = tc.str(t, kAtomTextChars);
    for (int v : t->freeVars) a.index.push_back(IndexExpr::var(v));
    (void)why;
    return ofAtom(finish(std::move(a)));
  }

  // The algebra derived.h's formulas are written over (Note [Derived operations]).
  struct PolyAlgebra {
    using V = Poly;
    Impl &nf;
    Poly num(double v) { return constant(ratOfDouble(v)); }
    Poly add(const Poly &a, const Poly &b) { return Impl::add(a, b); }
    Poly mul(const Poly &a, const Poly &b) { return nf.mul(a, b); }
    Poly div(const Poly &a, const Poly &b, const char *text) { return nf.mul(a, nf.power(b, Rat(-1), text)); }
    Poly neg(const Poly &a) { return scale(a, Rat(-1)); }
    Poly exp(const Poly &a) { return nf.expOf(a); }
    Poly erf(const Poly &a) { return nf.fn(topName(TOp::Erf), {a}); }
    Poly tanh(const Poly &a) { return nf.fn(topName(TOp::Tanh), {a}); }
  };

  Poly compute(TermPtr t) {
    DType d = t->dtype;
    auto A = [&](int i) { return norm(t->args[i]); };
    std::string text = tc.str(t, kAtomTextChars);
    if (auto kept = someElementKept(t, text)) return *kept;
    if (isIntegral(d) && !(t->op == TOp::Add || t->op == TOp::Sub || t->op == TOp::Mul || t->op == TOp::Neg ||
                           t->op == TOp::Read || t->op == TOp::Const || t->op == TOp::IndexValue))
      return opaque(t, "integral");
    if (isIntegral(d))
      for (TermPtr a : t->args)
        if (a->dtype != d) return opaque(t, "mixed integer widths");
    switch (t->op) {
    case TOp::Const:
      return constant(isFloating(d) ? ratOfDouble(t->num) : Rat(t->inum));
    case TOp::Read: {
      Atom a;
      a.kind = AtomKind::Read;
      a.name = "t" + std::to_string(t->slot) + ":" + std::string(dtypeName(d));
      a.slot = t->slot;
      a.index = t->index;
      a.indicator = d == DType::Bool;
      a.text = text;
      return ofAtom(finish(std::move(a)));
    }
    case TOp::IndexValue: {  // Note [Positions as values in terms]: an atom keyed by the position
      Atom a;
      a.kind = AtomKind::Read;
      a.name = "value:" + std::string(dtypeName(d));
      a.index = t->index;
      a.text = text;
      return ofAtom(finish(std::move(a)));
    }
    case TOp::IndexCmp:
      return indexCond(static_cast<IndexCmpKind>(t->inum), t->index[0], t->index[1], text);
    case TOp::Add: return mergeSplitSums(add(A(0), A(1)));
    case TOp::Sub: return mergeSplitSums(add(A(0), A(1), Rat(-1)));
    case TOp::Mul: return mul(A(0), A(1));
    case TOp::Neg: return scale(A(0), Rat(-1));
    case TOp::Div: return mul(A(0), power(A(1), Rat(-1), tc.str(t->args[1], kAtomTextChars)));
    case TOp::Sqrt: return power(A(0), Rat(1, 2), tc.str(t->args[0], kAtomTextChars));
    case TOp::Rsqrt: return power(A(0), Rat(-1, 2), tc.str(t->args[0], kAtomTextChars));
    case TOp::PowC: return power(A(0), ratOfDouble(t->num), tc.str(t->args[0], kAtomTextChars));
    case TOp::Exp: {
      if (auto masked = maskedExp(t->args[0])) return *masked;
      return expOf(A(0));
    }
    case TOp::Log: return logOf(A(0), tc.str(t->args[0], kAtomTextChars));
    // Note [Powers and logarithms of other bases]
    // exp2(x) = exp(x * log 2), log2(x) = log(x) / log 2, and pow(a, b) = a^b for an integer
    // constant b (at most kMaxIntegerPower), else exp(b * log a) for a positive constant a: each
    // an identity over the reals, with log 2 an atom known positive, so that exp2(k * log2 y) is
    // y^k as exp(k * log y) is (fla's retention writes its decay so).
    case TOp::Exp2: return expOf(mul(A(0), logOf(constant(2), "2")));
    case TOp::Log2: return mul(logOf(A(0), tc.str(t->args[0], kAtomTextChars)), power(logOf(constant(2), "2"), Rat(-1), "log(2)"));
    case TOp::PowT: {
      Poly base = A(0), e = A(1);
      if (auto n = integerConstant(e); n && abs(*n) <= kMaxIntegerPower) return power(base, *n, tc.str(t->args[0], kAtomTextChars));
      if (auto q = rationalConstant(base); q && *q > 0) return expOf(mul(e, logOf(base, tc.str(t->args[0], kAtomTextChars))));
      return fn(topName(t->op), {base, e}, false, text);
    }
    case TOp::Maximum: case TOp::Minimum: {
      // Over the reals max and min commute.
      Poly a = A(0), b = A(1);
      if (polyKey(b) < polyKey(a)) std::swap(a, b);
      return fn(topName(t->op), {a, b}, false, text);
    }
    case TOp::Lt: case TOp::Le: case TOp::Gt: case TOp::Ge: case TOp::Eq: case TOp::Ne:
      if (!isFloating(t->args[0]->dtype)) {
        // Integer polynomials are equal only modulo 2^n: their order, and
        // whether a difference is zero, are not ring facts. The comparison is
        // an opaque indicator of its (normalized) operands, unless both are
        // constants the dtype holds (a wrapped value in range is itself): an
        // element's count of kept positions, written out (Note [Normal forms
        // element by element]).
        if (auto decided = compareIntegerConstants(t->op, t->args[0]->dtype, A(0), A(1))) return constant(*decided ? 1 : 0);
        Poly ind = fn(std::string("cmp_") + topName(t->op) + "_" + std::string(dtypeName(t->args[0]->dtype)),
                      {A(0), A(1)}, false, text);
        return ind;
      }
      break;
    default:
      if (hasProp(t->op, tprop::Derived)) {  // its formula (Note [Derived operations])
        PolyAlgebra alg{*this};
        return derivedFormula(alg, t->op, A(0));
      }
      // Uninterpreted functions, those without a theory over the reals (floor,
      // ...; sqrt has its case above), and abs: atoms of normalized arguments.
      if (isUninterpreted(t->op) || isRealFunction(t->op) || t->op == TOp::Abs) {
        std::vector<Poly> args;
        for (size_t i = 0; i < t->args.size(); ++i) args.push_back(A(static_cast<int>(i)));
        return fn(topName(t->op), args, false, text);
      }
      break;
    }
    switch (t->op) {
    case TOp::Lt: return indicator("lt", add(A(0), A(1), Rat(-1)));
    case TOp::Le: return indicator("le", add(A(0), A(1), Rat(-1)));
    case TOp::Gt: return indicator("lt", add(A(1), A(0), Rat(-1)));
    case TOp::Ge: return indicator("le", add(A(1), A(0), Rat(-1)));
    case TOp::Eq: return indicator("eq", add(A(0), A(1), Rat(-1)));
    case TOp::Ne: return add(constant(1), indicator("eq", add(A(0), A(1), Rat(-1))), Rat(-1));
    case TOp::IsNan: return constant(0);  // no NaN among the reals
    case TOp::IsInf: return constant(0);  // nor infinities
    case TOp::Not: return add(constant(1), A(0), Rat(-1));
    case TOp::And: return mul(A(0), A(1));
    case TOp::Or: return add(add(A(0), A(1)), mul(A(0), A(1)), Rat(-1));
    case TOp::Xor: return add(add(A(0), A(1)), mul(A(0), A(1)), Rat(-2));
    case TOp::Select: {
      Poly c = A(0);
      return add(mul(c, A(1)), mul(add(constant(1), c, Rat(-1)), A(2)));
    }
    case TOp::Cast: {
      DType from = t->args[0]->dtype;
      if (isFloating(d) && (isFloating(from) || from == DType::Bool)) return A(0);  // exact over the reals
      if (d == DType::Bool && isFloating(from)) return add(constant(1), indicator("eq", A(0)), Rat(-1));
      return fn("cast_" + std::string(dtypeName(from)) + "_" + std::string(dtypeName(d)), {A(0)}, false, text);
    }
    case TOp::Sum:
    case TOp::Pick:  // a sum of one summand not -0 (Note [Reads at data-dependent positions])
      return sumOf(t->binder, t->extent, A(0));
    case TOp::RMax: case TOp::RMin: case TOp::Prod: {
      // max/min (or product) over the bound index: an atom of the canonically renamed body.
      // A max over masked elements is the max of the kept ones, an atom of
      // both (Note [Masked -inf]).
      std::vector<Poly> body;
      std::string name = topName(t->op);
      auto masked = t->op == TOp::RMax ? maskedNegInf(t->args[0]) : std::nullopt;
      if (masked && masked->keep.terms.empty()) return opaque(t, "a max over elements that are all -inf");
      if (masked) {
        body = {masked->keep, masked->value};
        name += "_masked";
        assumptions.insert(Assumption::about(Assumption::Kind::KeepsElement, text));
      } else {
        body = {A(0)};
      }
      int h = t->height;
      int canon = tc.vars.canonical(1, h + 1000, t->extent);
      Atom a;
      a.kind = AtomKind::Fn;
      a.name = name + "<" + t->extent.str() + ">" + std::to_string(canon);
      for (const Poly &p : body) a.args.push_back(renamePoly(p, t->binder, canon));
      a.text = text;
      AtomPtr atom = finish(std::move(a));
      Atom fixed = *atom;  // the binder is bound: drop it from the free variables
      fixed.freeVars.erase(std::remove(fixed.freeVars.begin(), fixed.freeVars.end(), canon), fixed.freeVars.end());
      return ofAtom(std::make_shared<const Atom>(std::move(fixed)));
    }
    default:
      return opaque(t, "no rule");
    }
  }
};

std::string exactRational(double v) {
  Rat r = ratOfDouble(v);
  return numerator(r).str() + "/" + denominator(r).str();
}

NormalForm::NormalForm(TermContext &tc, const IndexRanges *inRange) : impl_(std::make_unique<Impl>(tc, inRange)) {}
NormalForm::~NormalForm() = default;

std::string NormalForm::key(TermPtr t) { return polyKey(impl_->norm(t)); }
const Assumptions &NormalForm::assumptions() const { return impl_->assumptions; }

}  // namespace torchtv::sem
