#include "src/verify/rounded_constants.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>
#include <unordered_set>

#include "ir/graph.h"
#include "src/sem/normal_form.h"
#include "src/verify/cone.h"
#include "src/verify/roundings.h"
#include "src/verify/verdict.h"

namespace torchtv {

namespace {

// A key is read as text runs and numbers ("digits" or "digits/digits"), alternating. The next
// one from position i (advanced past it); keys of large regions run to megabytes, so they are
// compared token by token, without copies, and the comparison stops at the first difference
// that is not a number.
struct Token {
  bool number;
  std::string_view text;
};

Token nextToken(std::string_view s, size_t &i) {
  auto digit = [&](size_t k) { return k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])); };
  size_t j = i;
  bool number = digit(i);
  if (number) {
    while (digit(j)) ++j;
    if (j + 1 < s.size() && s[j] == '/' && digit(j + 1)) {
      ++j;
      while (digit(j)) ++j;
    }
  } else {
    while (j < s.size() && !digit(j)) ++j;
  }
  Token t{number, s.substr(i, j - i)};
  i = j;
  return t;
}

// Numerator and denominator of "n/d" (or "n", d = "1").
std::pair<std::string, std::string> parts(const std::string &r) {
  size_t slash = r.find('/');
  if (slash == std::string::npos) return {r, "1"};
  return {r.substr(0, slash), r.substr(slash + 1)};
}

long double value(const std::string &r) {
  auto [n, d] = parts(r);
  return std::strtold(n.c_str(), nullptr) / std::strtold(d.c_str(), nullptr);
}

std::string fmt(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The literal a user most likely wrote: the double itself, or 1/double, else the rational.
std::string spell(const std::string &r) {
  auto [n, d] = parts(r);
  double v = static_cast<double>(value(r));
  if (sem::exactRational(v) == r) return fmt(v);
  double inv = static_cast<double>(std::strtold(d.c_str(), nullptr) / std::strtold(n.c_str(), nullptr));
  std::string invExact = sem::exactRational(inv);
  if (invExact == d + "/" + n || (n == "1" && invExact == d)) return "1/" + fmt(inv);
  return r + " (about " + fmt(v) + ")";
}

}  // namespace

double roundedConstantsTolerance(DType computedIn) { return 2 * unitRoundoff(computedIn); }

std::optional<std::vector<RoundedConstantPair>> roundedConstantsOnly(const std::string &a, const std::string &b,
                                                                     double tolerance) {
  std::vector<RoundedConstantPair> out;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i >= a.size() || j >= b.size()) return std::nullopt;
    Token ta = nextToken(a, i), tb = nextToken(b, j);
    if (ta.number != tb.number) return std::nullopt;
    if (ta.text == tb.text) continue;
    if (!ta.number) return std::nullopt;
    std::string na(ta.text), nb(tb.text);
    long double x = value(na), y = value(nb);
    if (!std::isfinite(x) || !std::isfinite(y) || x == 0 || y == 0) return std::nullopt;
    long double relative = std::fabs(x - y) / std::fabs(x);
    if (relative > tolerance) return std::nullopt;
    RoundedConstantPair p{spell(na), spell(nb), static_cast<double>(x), static_cast<double>(y),
                          static_cast<double>(relative)};
    bool seen = false;
    for (const RoundedConstantPair &q : out) seen = seen || (q.reference == p.reference && q.production == p.production);
    if (!seen) out.push_back(p);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

DType constantsDType(sem::TermPtr reference, sem::TermPtr production) {
  // The outputs' dtype: the terms' constants are typed by the semantics that made them (a scalar
  // argument may be a double), not by the precision the code's values are rounded to.
  std::optional<DType> finest;
  for (sem::TermPtr t : {reference, production})
    if (t && isFloating(t->dtype) && (!finest || unitRoundoff(t->dtype) < unitRoundoff(*finest))) finest = t->dtype;
  return finest.value_or(DType::F64);
}

std::string constantWrittenOnlyBy(const Value *side, const Value *other) {
  std::set<double> theirs;
  forEachNodeInCone(other, [&](const Node &n) {
    for (const auto &[name, a] : n.attrs)
      if (a.isFloat()) theirs.insert(a.asFloat());
  });
  std::map<double, const Node *> mine;
  forEachNodeInCone(side, [&](const Node &n) {
    for (const auto &[name, a] : n.attrs)
      if (a.isFloat() && !theirs.count(a.asFloat()) && n.loc.known()) mine.emplace(a.asFloat(), &n);
  });
  return mine.size() == 1 ? mine.begin()->second->loc.str() : "";
}

std::string constantLocation(const Value *v, double value) {
  auto same = [&](double d) { return d != 0 && (std::fabs(d - value) <= 1e-12 * std::fabs(value) ||
                                                std::fabs(1 / d - value) <= 1e-12 * std::fabs(value)); };
  const Node *found = nullptr;
  forEachNodeInCone(v, [&](const Node &n) {
    for (const auto &[name, a] : n.attrs)
      if (a.isFloat() && same(a.asFloat()) && n.loc.known() && (!found || n.outputs[0]->id < found->outputs[0]->id))
        found = &n;
  });
  return found ? found->loc.str() : "";
}

std::vector<Rounding> roundingSites(const std::vector<RoundedConstantPair> &pairs, DType dtype, const Value *reference,
                                    const Value *production) {
  std::vector<Rounding> out;
  for (const RoundedConstantPair &p : pairs) {
    Rounding r;
    r.kind = Rounding::Kind::Constants;
    r.reference = p.reference;
    r.production = p.production;
    r.dtype = dtypeName(dtype);
    r.loc = constantLocation(production, p.productionValue);
    if (r.loc.empty()) r.loc = constantLocation(reference, p.referenceValue);
    if (r.loc.empty()) r.loc = constantWrittenOnlyBy(production, reference);
    r.bound = p.relative;
    addRoundings(out, {r});
  }
  return out;
}


}  // namespace torchtv
