// A rule's two sides as small graphs, for the test that proves every rule.
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "ir/diagnostic.h"
#include "src/normalize/rule_matcher.h"

namespace torchtv {

namespace {

void tensorVars(const Pattern &p, std::vector<std::string> &out) {
  if (p.isVar() && std::find(out.begin(), out.end(), p.var) == out.end()) out.push_back(p.var);
  for (const Pattern &o : p.operands) tensorVars(o, out);
}

void attrVars(const Pattern &p, std::vector<std::string> &out) {
  std::function<void(const AttrExpr &)> walk = [&](const AttrExpr &e) {
    if (e.kind == AttrExpr::Kind::Var && std::find(out.begin(), out.end(), e.name) == out.end())
      out.push_back(e.name);
    for (const auto &a : e.args) walk(a);
  };
  for (const auto &[k, e] : p.attrs) walk(e);
  for (const Pattern &o : p.operands) attrVars(o, out);
}

// Values tried for attribute variables: ones that satisfy and ones that fail
// typical preconditions, of both signs.
const double kCandidates[] = {2.0, 0.5, -4.0, 3.0, 0.1};

}  // namespace

std::vector<RuleInstance> instantiateRule(const Rule &r, DType dtype) {
  std::vector<std::string> tvars, avars;
  tensorVars(r.lhs, tvars);
  attrVars(r.lhs, avars);
  std::vector<RuleInstance> out;
  for (double c : kCandidates) {
    RuleBindings b;
    for (const std::string &a : avars)
      b.attrs[a] = isFloating(dtype) ? Attribute(c) : Attribute(static_cast<int64_t>(c));
    if (r.precondition) {
      auto ok = evalAttr(*r.precondition, b);
      if (!ok || !ok->asBool()) continue;
    }
    RuleInstance inst;
    std::string label = r.name + " " + std::string(dtypeName(dtype));
    for (const auto &[k, v] : b.attrs) label += " $" + k + "=" + v.str();
    inst.label = label;
    bool ok = true;
    for (int side = 0; side < 2 && ok; ++side) {
      auto g = std::make_unique<Graph>(side == 0 ? "lhs" : "rhs");
      RuleBindings sb = b;
      for (const std::string &v : tvars) sb.tensors[v] = g->addInput(v, TensorType{dtype, {2, 3}});
      std::unordered_set<const Value *> real;
      Rewriter rw(*g, real);
      try {
        auto v = buildPattern(side == 0 ? r.lhs : r.rhs, sb, rw, false, {});
        if (!v) {
          ok = false;
          break;
        }
        g->addOutput(*v, "out");
      } catch (const InputError &) {
        ok = false;
        break;
      }
      (side == 0 ? inst.lhs : inst.rhs) = std::move(g);
    }
    if (ok && inst.lhs->outputs()[0]->type == inst.rhs->outputs()[0]->type) out.push_back(std::move(inst));
    if (avars.empty()) break;  // one instance is all there is
  }
  return out;
}

}  // namespace torchtv
