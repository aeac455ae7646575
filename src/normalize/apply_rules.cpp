#include <algorithm>
#include <cmath>
#include <set>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "src/match/value_numbering.h"
#include "src/normalize/passes.h"
#include "src/normalize/rule_matcher.h"

namespace torchtv {

namespace {

// Scalars match by value, ints and floats alike (the rewritten node's type is
// checked separately), but -0.0 never matches 0.0.
bool literalMatches(const Attribute &lit, const Attribute &a) {
  if (lit.isScalar() && a.isScalar() && !lit.isBool() && !a.isBool()) {
    double x = lit.asDouble(), y = a.asDouble();
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return x == y && std::signbit(x) == std::signbit(y);
  }
  return lit == a;
}

bool attrsMatch(const Pattern &p, const Node &n, RuleBindings &b) {
  for (const ArgSpec &arg : n.schema->args) {
    if (arg.isTensor()) continue;
    const Attribute &a = n.attr(arg.name);
    auto it = p.attrs.find(arg.name);
    if (it == p.attrs.end()) {
      // Unmentioned: must be the default, so the rule cannot ignore an argument.
      Attribute def = arg.defaultValue ? *arg.defaultValue : Attribute(NoneValue{});
      if (!literalMatches(def, a)) return false;
      continue;
    }
    const AttrExpr &e = it->second;
    switch (e.kind) {
    case AttrExpr::Kind::Any: break;
    case AttrExpr::Kind::Literal:
      if (!literalMatches(e.literal, a)) return false;
      break;
    case AttrExpr::Kind::Var: {
      auto [bound, inserted] = b.attrs.emplace(e.name, a);
      if (!inserted && bound->second != a) return false;
      break;
    }
    case AttrExpr::Kind::Call: return false;
    }
  }
  return true;
}

bool matchOperands(const Pattern &p, const Node &n, const std::vector<size_t> &order, RuleBindings &b) {
  for (size_t i = 0; i < order.size(); ++i) {
    Value *in = n.inputs[order[i]];
    if (!in || !matchPattern(p.operands[i], in, b)) return false;
  }
  return true;
}

}  // namespace

bool matchPattern(const Pattern &p, Value *v, RuleBindings &b) {
  if (p.isVar()) {
    auto [it, inserted] = b.tensors.emplace(p.var, v);
    return inserted || it->second == v;
  }
  const Node *n = v->producer;
  if (!n || n->op != p.op || n->outputs.size() != 1 || n->inputs.size() != p.operands.size()) return false;
  RuleBindings trial = b;
  if (!attrsMatch(p, *n, trial)) return false;
  std::vector<size_t> order;
  for (size_t i = 0; i < n->inputs.size(); ++i) order.push_back(i);
  RuleBindings straight = trial;
  if (matchOperands(p, *n, order, straight)) {
    b = std::move(straight);
  } else if (order.size() == 2 && isBitwiseCommutative(*n)) {
    std::swap(order[0], order[1]);
    if (!matchOperands(p, *n, order, trial)) return false;
    b = std::move(trial);
  } else {
    return false;
  }
  b.matched.push_back(v);
  return true;
}

std::optional<Attribute> evalAttr(const AttrExpr &e, const RuleBindings &b) {
  switch (e.kind) {
  case AttrExpr::Kind::Literal: return e.literal;
  case AttrExpr::Kind::Var: return b.attrs.at(e.name);
  case AttrExpr::Kind::Any: return std::nullopt;
  case AttrExpr::Kind::Call: {
    std::vector<Attribute> args;
    for (const AttrExpr &a : e.args) {
      auto v = evalAttr(a, b);
      if (!v) return std::nullopt;
      args.push_back(*v);
    }
    if (isRulePredicate(e.name)) return Attribute(callRulePredicate(e.name, args));
    return callRuleFunction(e.name, args);
  }
  }
  return std::nullopt;
}

std::optional<Value *> buildPattern(const Pattern &p, const RuleBindings &b, Rewriter &rw, bool real,
                                    const SourceLoc &loc) {
  if (p.isVar()) return b.tensors.at(p.var);
  NodeSpec spec;
  spec.op = p.op;
  spec.loc = loc;
  for (const Pattern &o : p.operands) {
    auto v = buildPattern(o, b, rw, real, loc);
    if (!v) return std::nullopt;
    spec.inputs.push_back(*v);
  }
  for (const auto &[name, e] : p.attrs) {
    if (e.kind == AttrExpr::Kind::Any) continue;
    auto v = evalAttr(e, b);
    if (!v) return std::nullopt;
    spec.attrs[name] = *v;
  }
  return rw.build(spec, real)->outputs[0];
}

bool applyRules(Rewriter &rw, const RuleSet &rules) {
  return rw.rewriteEach([&](Node *n) {
    if (n->outputs.size() != 1) return false;
    Value *root = n->outputs[0];
    for (const Rule &r : rules.rules()) {
      // Note [Levels of rewrites]: only bitwise rules canonicalize.
      if (r.cls != RuleClass::Bitwise || r.lhs.op != n->op) continue;
      if (std::find(r.dtypes.begin(), r.dtypes.end(), root->type.dtype) == r.dtypes.end()) continue;
      RuleBindings b;
      if (!matchPattern(r.lhs, root, b)) continue;
      if (r.precondition) {
        auto ok = evalAttr(*r.precondition, b);
        if (!ok || !ok->isBool() || !ok->asBool()) continue;
      }
      bool real = false;
      for (const Value *v : b.matched) real = real || rw.isReal(v);
      std::optional<Value *> out;
      try {
        out = buildPattern(r.rhs, b, rw, real, n->loc);
      } catch (const InputError &) {
        continue;  // the right side does not type-check here: the rule does not apply
      }
      if (!out || (*out)->type != root->type) continue;
      rw.replace(root, *out);
      return true;
    }
    return false;
  });
}

}  // namespace torchtv
