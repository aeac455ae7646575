// Matching a rule's pattern against a graph and building the other side;
// shared by the rewrite pass and by the rule tests.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "src/normalize/rewriter.h"
#include "src/normalize/rule.h"

namespace torchtv {

struct RuleBindings {
  std::map<std::string, Value *> tensors;
  std::map<std::string, Attribute> attrs;
  std::vector<Value *> matched;  // values the left side covered
};

// Whether `p` matches the computation of `v`, extending `b`.
bool matchPattern(const Pattern &p, Value *v, RuleBindings &b);

// The value of an attribute expression under `b` (nullopt: a function did not apply).
std::optional<Attribute> evalAttr(const AttrExpr &e, const RuleBindings &b);

// Builds `p` under `b` (for a left side, `_` leaves the default). Throws
// InputError when a node does not type-check; nullopt when a function does
// not apply.
std::optional<Value *> buildPattern(const Pattern &p, const RuleBindings &b, Rewriter &rw, bool real,
                                    const SourceLoc &loc);

// Lhs and rhs of a rule as two graphs over shared inputs, for testing it.
struct RuleInstance {
  std::string label;  // "div-by-power-of-two f16 $c=2.0"
  std::unique_ptr<Graph> lhs, rhs;
};
std::vector<RuleInstance> instantiateRule(const Rule &r, DType dtype);

}  // namespace torchtv
