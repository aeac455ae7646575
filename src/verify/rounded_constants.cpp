#include "src/verify/rounded_constants.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "src/sem/normal_form.h"
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

std::optional<std::vector<RoundedConstantPair>> roundedConstantsOnly(const std::string &a, const std::string &b) {
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
    if (std::fabs(x - y) > kRoundedConstantsTolerance * std::fabs(x)) return std::nullopt;
    RoundedConstantPair p{spell(na), spell(nb)};
    bool seen = false;
    for (const RoundedConstantPair &q : out) seen = seen || (q.reference == p.reference && q.production == p.production);
    if (!seen) out.push_back(p);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string describeRoundedConstants(const std::vector<RoundedConstantPair> &pairs) {
  std::string s = reasons::kRoundedConstants;
  for (size_t i = 0; i < pairs.size() && i < 3; ++i)
    s += (i ? ", " : "") + pairs[i].reference + " and " + pairs[i].production;
  if (pairs.size() > 3) s += ", ...";
  return s;
}

}  // namespace torchtv
