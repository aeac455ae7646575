#include "src/verify/localize.h"

#include <cmath>
#include <limits>
#include <set>
#include <unordered_set>

#include "src/eval/concrete.h"
#include "src/verify/refute.h"

namespace torchtv {

namespace {

// The counterexample's inputs as the evaluator takes them; nullopt when they
// are not inputs of `g` (another count, or another number of elements).
std::optional<std::vector<eval::EvalTensor>> inputsOf(const Graph &g, const Counterexample &c) {
  if (c.inputs.size() != g.inputs().size()) return std::nullopt;
  std::vector<eval::EvalTensor> out;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const TensorType &type = g.inputs()[i]->type;
    auto n = numel(type.shape);
    if (!n || static_cast<size_t>(*n) != c.inputs[i].values.size()) return std::nullopt;
    eval::EvalTensor t{type, {}};
    for (double v : c.inputs[i].values) t.values.push_back(v);
    out.push_back(std::move(t));
  }
  return out;
}

// The values `root` depends on (itself included).
std::unordered_set<const Value *> coneOf(const Value *root) {
  std::unordered_set<const Value *> cone;
  std::vector<const Value *> stack{root};
  while (!stack.empty()) {
    const Value *v = stack.back();
    stack.pop_back();
    if (!v || !cone.insert(v).second || !v->producer) continue;
    for (const Value *in : v->producer->inputs) stack.push_back(in);
    for (const Value *sibling : v->producer->outputs) cone.insert(sibling);
  }
  return cone;
}

bool same(long double a, long double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Equal up to the noise of evaluating in double (another order of the same
// additions), far below any difference a refutation confirms.
constexpr long double kRelativeNoise = 1e-9L;

bool close(const eval::EvalTensor &a, const eval::EvalTensor &b) {
  for (size_t k = 0; k < a.values.size(); ++k) {
    long double x = a.values[k], y = b.values[k];
    if (same(x, y)) continue;
    if (!(std::fabs(x - y) <= kRelativeNoise * std::max(std::fabs(x), std::fabs(y)))) return false;
  }
  return true;
}

// The largest elementwise difference (NaN against a number: infinite).
long double distance(const eval::EvalTensor &a, const eval::EvalTensor &b) {
  long double worst = 0;
  for (size_t k = 0; k < a.values.size(); ++k)
    if (!same(a.values[k], b.values[k])) {
      long double d = std::fabs(a.values[k] - b.values[k]);
      worst = std::isnan(d) ? std::numeric_limits<long double>::infinity() : std::max(worst, d);
    }
  return worst;
}

}  // namespace

Site siteOf(const Node &n) { return Site{n.outputs.at(0)->name, n.op, n.loc.known() ? n.loc.str() : ""}; }

std::optional<IntermediateDifference> localizeDifference(const Graph &ref, const Graph &prod, const Counterexample &c,
                                                         const MatchMap &match) {
  size_t output = 0;
  while (output < ref.outputNames().size() && ref.outputNames()[output] != c.output) ++output;
  if (output >= ref.outputs().size() || output >= prod.outputs().size() || !withinEvalBudget(ref, prod))
    return std::nullopt;
  auto inputs = inputsOf(ref, c);
  if (!inputs || !inputsOf(prod, c)) return std::nullopt;
  std::map<const Value *, eval::EvalTensor> refRun, prodRun;
  try {
    eval::evaluateGraph(ref, *inputs, eval::Precision::Double, &refRun);
    eval::evaluateGraph(prod, *inputs, eval::Precision::Double, &prodRun);
  } catch (const eval::EvalError &) {
    return std::nullopt;
  }
  std::set<int> refNumbers, shared;
  for (const auto &[name, number] : match.reference) refNumbers.insert(number);
  for (const auto &[name, number] : match.production)
    if (refNumbers.count(number)) shared.insert(number);
  auto matched = [&](const std::map<std::string, int> &numbers, const Value *v) {
    auto it = numbers.find(v->name);
    return it != numbers.end() && shared.count(it->second);
  };
  // The reference's values by type: does it compute these numbers somewhere?
  std::map<std::string, std::vector<const eval::EvalTensor *>> byType;
  for (const auto &[value, tensor] : refRun) byType[value->type.str()].push_back(&tensor);
  auto computed = [&](const Value *v, const eval::EvalTensor &t) {
    for (const eval::EvalTensor *r : byType[v->type.str()])
      if (close(*r, t)) return true;
    return false;
  };
  auto refCone = coneOf(ref.outputs()[output]), prodCone = coneOf(prod.outputs()[output]);
  // Per production value of the cone: does the reference compute it (matched, or the same
  // numbers), and does something it feeds (in the cone) again compute what the reference does?
  std::map<const Value *, bool> known, reconverges;
  for (const auto &node : prod.nodes())
    for (const Value *v : node->outputs)
      if (prodCone.count(v)) known[v] = matched(match.production, v) || computed(v, prodRun.at(v));
  for (auto it = prod.nodes().rbegin(); it != prod.nodes().rend(); ++it)
    for (const Value *in : (*it)->inputs)
      if (in && prodCone.count(in))
        for (const Value *v : (*it)->outputs)
          if (prodCone.count(v) && (known[v] || reconverges[v])) reconverges[in] = true;
  for (const auto &node : prod.nodes()) {
    for (const Value *v : node->outputs) {
      if (!prodCone.count(v) || known[v] || reconverges[v]) continue;
      const eval::EvalTensor &mine = prodRun.at(v);
      // The nearest unmatched reference value of the same type.
      const Value *partner = nullptr;
      long double best = 0;
      for (const auto &refNode : ref.nodes())
        for (const Value *r : refNode->outputs) {
          if (!refCone.count(r) || matched(match.reference, r) || r->type != v->type) continue;
          long double d = distance(refRun.at(r), mine);
          if (!partner || d < best) partner = r, best = d;
        }
      if (!partner) return std::nullopt;
      const eval::EvalTensor &theirs = refRun.at(partner);
      IntermediateDifference out;
      out.reference = siteOf(*partner->producer);
      out.reference.value = partner->name;
      out.production = siteOf(*node);
      out.production.value = v->name;
      out.referenceType = partner->type.str();
      out.productionType = v->type.str();
      for (size_t k = 0; k < mine.values.size(); ++k) {
        if (same(theirs.values[k], mine.values[k])) continue;
        out.differs = true;
        out.index = eval::unflatten(v->type.shape, k);
        out.referenceValue = static_cast<double>(theirs.values[k]);
        out.productionValue = static_cast<double>(mine.values[k]);
        return out;
      }
      return std::nullopt;  // not reached: the bits differ somewhere
    }
  }
  return std::nullopt;
}

}  // namespace torchtv
