// Rewrite rules as data (rules/*.rules), in the spirit of MLIR's DRR and egg:
//
//   # pow(x, 2) -> mul(x, x)
//   rule pow-two-is-square : bitwise [f16, bf16, f32, f64]
//     aten::pow.Tensor_Scalar(%x) {exponent=2.0} => aten::mul.Tensor(%x, %x)
//
//   # div(x, c) -> mul(x, 1/c) when 1/c is exact
//   rule div-by-power-of-two : bitwise [f16, bf16, f32, f64] if power_of_two($c)
//     aten::div.Scalar(%x) {other=$c} => aten::mul.Scalar(%x) {other=reciprocal($c)}
//
// `%x` binds a tensor (the same name twice means the same value), `$c` an
// attribute; `_` accepts any attribute value. An attribute the left side does
// not mention must have its schema default; on the right side it gets it.
// Operands of bitwise-commutative ops match in either order. The class says
// where the rule holds: `bitwise` (bit for bit in IEEE arithmetic, for every
// listed dtype of the matched result) or `real` (over the reals only). The
// normalizer runs only bitwise rules (Note [Levels of rewrites]); real rules
// such as reassociation do not converge and are facts for the prover.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/attribute.h"
#include "ir/dtype.h"

namespace torchtv {

enum class RuleClass { Bitwise, Real };

// An attribute in a pattern: a literal, $var, `_`, or fn($var, ...).
struct AttrExpr {
  enum class Kind { Literal, Var, Any, Call };
  Kind kind = Kind::Any;
  Attribute literal;
  std::string name;  // variable or function name
  std::vector<AttrExpr> args;
};

// A tensor expression: a variable (%x) or an op applied to sub-patterns.
struct Pattern {
  std::string var;  // set for a variable leaf
  std::string op;
  std::vector<Pattern> operands;
  std::map<std::string, AttrExpr> attrs;

  bool isVar() const { return !var.empty(); }
};

struct Rule {
  std::string name;
  RuleClass cls = RuleClass::Bitwise;
  std::vector<DType> dtypes;
  std::optional<AttrExpr> precondition;  // a Call of a named predicate
  Pattern lhs, rhs;
  std::string file;
  int line = 0;
};

class RuleSet {
public:
  // Parses every *.rules file in `dir` (sorted); InputError on bad syntax,
  // unknown ops, functions or predicates, or a duplicate rule name.
  void loadDirectory(const std::string &dir);
  void addText(const std::string &text, const std::string &path);

  const std::vector<Rule> &rules() const { return rules_; }
  const Rule *find(const std::string &name) const;

  // The bundled rules/ folder: installLayout().rulesDir (Note [Installed layout]).
  static std::string bundledDirectory();

private:
  std::vector<Rule> rules_;
};

// Note [Rule functions]
// A rule computes a right-side attribute, or guards itself, only through a
// named function or predicate (`neg($c)`, `reciprocal($c)`, `if
// power_of_two($c)`), never an expression written inline, as in DRR and egg:
// the parser rejects any other name (rule_parser.cpp), so the arithmetic a
// rule may do is this short list in rule_functions.cpp. Each is exact in the
// attribute's own type for the values it accepts: negation always;
// reciprocal only where the rule's predicate has checked the value is a power
// of two (±2^k, |k| <= 126, whose reciprocal is exact in every float dtype;
// reciprocal(0) does not apply). A function returning nullopt makes the rule
// not apply at that node. Whether the rewrite holds for every listed dtype is
// not taken on trust: test_rules.cpp proves every instance of every rule.
// Adding a function: one name in isRuleFunction/isRulePredicate, its body in
// callRuleFunction/callRulePredicate, and a rule that uses it (so it is proven).
// Named attribute functions and predicates rules may use (rule_functions.cpp).
bool isRuleFunction(const std::string &name);
bool isRulePredicate(const std::string &name);
// nullopt when the function does not apply (e.g. reciprocal of 0).
std::optional<Attribute> callRuleFunction(const std::string &name, const std::vector<Attribute> &args);
bool callRulePredicate(const std::string &name, const std::vector<Attribute> &args);

}  // namespace torchtv
