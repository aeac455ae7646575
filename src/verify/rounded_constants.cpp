#include "src/verify/rounded_constants.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "src/sem/normal_form.h"
#include "src/verify/verdict.h"

namespace torchtv {

namespace {

// Splits a key into text runs and numbers ("digits" or "digits/digits"), alternating.
struct Token {
  bool number;
  std::string text;
};

std::vector<Token> tokens(const std::string &s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j + 1 < s.size() && s[j] == '/' && std::isdigit(static_cast<unsigned char>(s[j + 1]))) {
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      out.push_back({true, s.substr(i, j - i)});
    } else {
      while (j < s.size() && !std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      out.push_back({false, s.substr(i, j - i)});
    }
    i = j;
  }
  return out;
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
  std::vector<Token> ta = tokens(a), tb = tokens(b);
  if (ta.size() != tb.size()) return std::nullopt;
  std::vector<RoundedConstantPair> out;
  for (size_t i = 0; i < ta.size(); ++i) {
    if (ta[i].number != tb[i].number) return std::nullopt;
    if (ta[i].text == tb[i].text) continue;
    if (!ta[i].number) return std::nullopt;
    long double x = value(ta[i].text), y = value(tb[i].text);
    if (!std::isfinite(x) || !std::isfinite(y) || x == 0 || y == 0) return std::nullopt;
    if (std::fabs(x - y) > kRoundedConstantsTolerance * std::fabs(x)) return std::nullopt;
    RoundedConstantPair p{spell(ta[i].text), spell(tb[i].text)};
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
