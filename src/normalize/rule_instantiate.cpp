// A rule's two sides as small graphs, for the test that proves every rule.
#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_set>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "src/normalize/rule_matcher.h"

namespace torchtv {

namespace {

void tensorVars(const Pattern &p, std::vector<std::string> &out) {
  if (p.isVar() && std::find(out.begin(), out.end(), p.var) == out.end()) out.push_back(p.var);
  for (const Pattern &o : p.operands) tensorVars(o, out);
}

// Attribute variables with the kind of the argument that binds them.
void attrVars(const Pattern &p, std::vector<std::pair<std::string, ArgKind>> &out) {
  for (const auto &[k, e] : p.attrs) {
    if (e.kind != AttrExpr::Kind::Var) continue;
    bool seen = false;
    for (const auto &v : out) seen = seen || v.first == e.name;
    const OpInfo *info = lookupOp(p.op);
    const ArgSpec *arg = info ? info->schema->findArg(k) : nullptr;
    if (!seen) out.emplace_back(e.name, arg ? arg->kind : ArgKind::Scalar);
  }
  for (const Pattern &o : p.operands) attrVars(o, out);
}

// `_` for an argument a node cannot do without gets a value that fits the
// test inputs (f32[2,3]-like tensors of the rule's dtype).
void fillAny(Pattern &p, DType dtype) {
  const OpInfo *info = p.isVar() ? nullptr : lookupOp(p.op);
  for (auto &[k, e] : p.attrs) {
    if (e.kind != AttrExpr::Kind::Any || !info) continue;
    const ArgSpec *arg = info->schema->findArg(k);
    if (!arg || arg->defaultValue || arg->optional) {
      if (arg && arg->kind == ArgKind::ScalarType) {
        e.kind = AttrExpr::Kind::Literal;
        e.literal = dtype;
      }
      continue;
    }
    e.kind = AttrExpr::Kind::Literal;
    if (arg->kind == ArgKind::IntList) e.literal = std::vector<int64_t>{2, 3};
  }
  for (Pattern &o : p.operands) fillAny(o, dtype);
}

// Values tried for attribute variables: ones that satisfy and ones that fail
// typical preconditions, of both signs (-1: the last dim, for dim arguments).
const double kCandidates[] = {2.0, 0.5, -4.0, 3.0, 0.1, -1.0, 0.0};

}  // namespace

std::vector<RuleInstance> instantiateRule(const Rule &r, DType dtype) {
  std::vector<std::string> tvars;
  std::vector<std::pair<std::string, ArgKind>> avars;
  tensorVars(r.lhs, tvars);
  attrVars(r.lhs, avars);
  std::vector<RuleInstance> out;
  for (double c : kCandidates) {
    RuleBindings b;
    bool fits = true;
    for (const auto &[a, kind] : avars) {
      if (kind == ArgKind::ScalarType) b.attrs[a] = dtype == DType::F64 ? DType::F32 : DType::F64;
      // An int variable is a dim in every rule so far: only candidates that index the
      // [2, 3] test tensors (0 and -1) make an instance.
      else if (kind == ArgKind::Int) {
        b.attrs[a] = static_cast<int64_t>(c);
        fits = fits && c == std::trunc(c) && c >= -2 && c <= 1;
      } else b.attrs[a] = isFloating(dtype) ? Attribute(c) : Attribute(static_cast<int64_t>(c));
    }
    if (!fits) continue;
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
        Pattern lhs = r.lhs;
        fillAny(lhs, dtype);
        auto v = buildPattern(side == 0 ? lhs : r.rhs, sb, rw, false, {});
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
