// The functions and predicates rules name (Note [Rule functions]): side
// conditions are named, not written inline, as in DRR and egg.
#include <cmath>

#include "src/normalize/rule.h"
#include "src/normalize/scalar_values.h"

namespace torchtv {

bool isRuleFunction(const std::string &name) { return name == "neg" || name == "reciprocal"; }
bool isRulePredicate(const std::string &name) { return name == "power_of_two"; }

std::optional<Attribute> callRuleFunction(const std::string &name, const std::vector<Attribute> &args) {
  if (args.size() != 1 || !args[0].isScalar() || args[0].isBool()) return std::nullopt;
  const Attribute &a = args[0];
  if (name == "neg") {
    if (a.isInt()) return Attribute(-a.asInt());
    return Attribute(-a.asFloat());
  }
  if (name == "reciprocal") {
    double v = a.asDouble();
    if (v == 0) return std::nullopt;
    return Attribute(1.0 / v);
  }
  return std::nullopt;
}

bool callRulePredicate(const std::string &name, const std::vector<Attribute> &args) {
  if (name == "power_of_two")
    return args.size() == 1 && args[0].isScalar() && !args[0].isBool() && isPowerOfTwo(args[0].asDouble());
  return false;
}

}  // namespace torchtv
