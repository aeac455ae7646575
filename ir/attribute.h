// Constant (non-tensor) arguments of a node: ints, floats, lists, dtypes, ...
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"

namespace torchtv {

struct NoneValue {
  bool operator==(const NoneValue &) const { return true; }
};

// Note [Attribute identity]
// Two attributes are the same when their canonical text (str()) is the same.
// Floats print in shortest round-trip form, so this compares doubles bit for
// bit: NaN equals NaN, and -0.0 differs from 0.0, which is what value numbering
// needs (mul(x, -0.0) and mul(x, 0.0) are different computations). An int and a
// float attribute never compare equal: PyTorch promotes them differently.
class Attribute {
public:
  using Storage = std::variant<NoneValue, bool, int64_t, double, std::string,
                               std::vector<int64_t>, std::vector<double>, DType>;

  Attribute() = default;
  Attribute(NoneValue v) : v_(v) {}  // NOLINT
  Attribute(bool v) : v_(v) {}       // NOLINT
  Attribute(int64_t v) : v_(v) {}    // NOLINT
  Attribute(int v) : v_(int64_t(v)) {}  // NOLINT
  Attribute(double v) : v_(v) {}     // NOLINT
  Attribute(std::string v) : v_(std::move(v)) {}  // NOLINT
  Attribute(const char *v) : v_(std::string(v)) {}  // NOLINT
  Attribute(std::vector<int64_t> v) : v_(std::move(v)) {}  // NOLINT
  Attribute(std::vector<double> v) : v_(std::move(v)) {}  // NOLINT
  Attribute(DType v) : v_(v) {}  // NOLINT

  bool isNone() const { return std::holds_alternative<NoneValue>(v_); }
  bool isBool() const { return std::holds_alternative<bool>(v_); }
  bool isInt() const { return std::holds_alternative<int64_t>(v_); }
  bool isFloat() const { return std::holds_alternative<double>(v_); }
  bool isString() const { return std::holds_alternative<std::string>(v_); }
  bool isInts() const { return std::holds_alternative<std::vector<int64_t>>(v_); }
  bool isFloats() const { return std::holds_alternative<std::vector<double>>(v_); }
  bool isDType() const { return std::holds_alternative<DType>(v_); }
  // A number usable as a PyTorch Scalar (bool, int or float).
  bool isScalar() const { return isBool() || isInt() || isFloat(); }

  bool asBool() const { return std::get<bool>(v_); }
  int64_t asInt() const { return std::get<int64_t>(v_); }
  double asFloat() const { return std::get<double>(v_); }
  double asDouble() const;  // any scalar, converted
  const std::string &asString() const { return std::get<std::string>(v_); }
  const std::vector<int64_t> &asInts() const { return std::get<std::vector<int64_t>>(v_); }
  const std::vector<double> &asFloats() const { return std::get<std::vector<double>>(v_); }
  DType asDType() const { return std::get<DType>(v_); }
  const Storage &storage() const { return v_; }

  // Canonical text, as written in .tvir: none, true, 3, 2.5, inf, "cpu", [1,2], f32.
  std::string str() const;
  bool operator==(const Attribute &o) const { return str() == o.str(); }
  bool operator!=(const Attribute &o) const { return !(*this == o); }

private:
  Storage v_;
};

// Shortest text that reads back to the same double; always marks it as a float
// ("2.0", "1e-05", "inf", "-inf", "nan").
std::string formatFloat(double v);
// A double-quoted string with '"', '\\' and newlines escaped: how .tvir writes
// strings (Graphviz's DOT reads the same form).
std::string quote(const std::string &s);

// A list attribute of scalar items (bool, int or float): doubles when
// `floats`, else ints (a bool as 0/1, a float truncated). The .tvir parser
// and the schema parser build their lists here.
Attribute listAttribute(const std::vector<Attribute> &items, bool floats);

// Attributes of a node, keyed by schema argument name (sorted: stable hashing).
using AttributeMap = std::map<std::string, Attribute>;

// "name=value;" for each attribute, in name order: the attributes' part of the
// keys that identify a node (value numbering, CSE, region keys, fusion calls).
std::string attributesKey(const AttributeMap &attrs);

}  // namespace torchtv
