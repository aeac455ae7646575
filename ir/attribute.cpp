#include "ir/attribute.h"

#include <charconv>
#include <cmath>

namespace torchtv {

std::string formatFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

double Attribute::asDouble() const {
  if (isBool()) return asBool() ? 1.0 : 0.0;
  if (isInt()) return static_cast<double>(asInt());
  return asFloat();
}

Attribute listAttribute(const std::vector<Attribute> &items, bool floats) {
  if (floats) {
    std::vector<double> v;
    for (const auto &a : items) v.push_back(a.asDouble());
    return v;
  }
  std::vector<int64_t> v;
  for (const auto &a : items)
    v.push_back(a.isBool() ? int64_t{a.asBool()} : a.isInt() ? a.asInt() : static_cast<int64_t>(a.asDouble()));
  return v;
}

namespace {
template <typename T, typename F>
std::string joinList(const std::vector<T> &xs, F fmt) {
  std::string out = "[";
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + fmt(xs[i]);
  return out + "]";
}

}  // namespace

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string Attribute::str() const {
  struct Printer {
    std::string operator()(NoneValue) const { return "none"; }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return formatFloat(d); }
    std::string operator()(const std::string &s) const { return quote(s); }
    std::string operator()(const std::vector<int64_t> &v) const {
      return joinList(v, [](int64_t i) { return std::to_string(i); });
    }
    std::string operator()(const std::vector<double> &v) const {
      // An empty list reads back as ints; that is fine, both mean "no values".
      return joinList(v, formatFloat);
    }
    std::string operator()(DType t) const { return std::string(dtypeName(t)); }
  };
  return std::visit(Printer{}, v_);
}

std::string attributesKey(const AttributeMap &attrs) {
  std::string key;
  for (const auto &[name, attr] : attrs) key += name + "=" + attr.str() + ";";
  return key;
}

}  // namespace torchtv
