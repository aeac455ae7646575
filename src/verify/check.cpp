#include "src/verify/check.h"

#include <chrono>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "ir/rewrite.h"
#include "src/match/divergence.h"
#include "src/match/value_numbering.h"
#include "src/normalize/normalize.h"

namespace torchtv {

namespace {

void requireSameInterface(const Graph &ref, const Graph &prod) {
  if (ref.inputs().size() != prod.inputs().size())
    throw InputError("the graphs take different numbers of inputs: reference " +
                     std::to_string(ref.inputs().size()) + ", production " +
                     std::to_string(prod.inputs().size()));
  for (size_t i = 0; i < ref.inputs().size(); ++i) {
    const Value *a = ref.inputs()[i], *b = prod.inputs()[i];
    if (a->type != b->type)
      throw InputError("input " + std::to_string(i) + " has type " + a->type.str() + " (%" + a->name +
                       ") in the reference but " + b->type.str() + " (%" + b->name + ") in production");
  }
  if (ref.outputs().size() != prod.outputs().size())
    throw InputError("the graphs return different numbers of outputs: reference " +
                     std::to_string(ref.outputs().size()) + ", production " +
                     std::to_string(prod.outputs().size()));
}

Site siteOf(const Node &n) {
  return Site{n.outputs.at(0)->name, n.op, n.loc.known() ? n.loc.str() : ""};
}

// Note [Levels of rewrites]: a matched output is only `real` when its cone
// holds a value normalization produced at level real.
bool coneHasReal(const Graph &g, const Value *out, const std::unordered_set<const Value *> &real) {
  if (real.empty()) return false;
  if (real.count(out)) return true;
  for (const Node *n : coneOf(g, out)) {
    for (const Value *v : n->outputs)
      if (real.count(v)) return true;
    for (const Value *v : n->inputs)
      if (v && real.count(v)) return true;
  }
  return false;
}

std::map<std::string, int> numbersByName(const Graph &g, const ValueNumbering &vn) {
  std::map<std::string, int> out;
  for (const Value *v : g.inputs()) out[v->name] = vn.number(v);
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs) out[v->name] = vn.number(v);
  return out;
}

}  // namespace

CheckResult checkGraphs(const Graph &origRef, const Graph &origProd, const CheckOptions &options) {
  auto start = std::chrono::steady_clock::now();
  requireSameInterface(origRef, origProd);
  std::shared_ptr<Graph> refCopy, prodCopy;
  NormalizeResult refNorm, prodNorm;
  if (options.normalization == Normalization::On) {
    NormalizeOptions no;
    no.rules = &bundledRules();
    const FusionLibrary &lib = options.fusions ? *options.fusions : bundledFusions();
    refCopy = cloneGraph(origRef);
    prodCopy = cloneGraph(origProd);
    refNorm = normalizeGraph(*refCopy, lib, no);
    prodNorm = normalizeGraph(*prodCopy, lib, no);
  }
  const Graph &ref = refCopy ? *refCopy : origRef;
  const Graph &prod = prodCopy ? *prodCopy : origProd;
  // Outputs already equal as written are bitwise-equal whatever normalization
  // does (it may expand a composite both sides call alike, at level real).
  ValueNumbering raw;
  raw.addGraph(origRef);
  raw.addGraph(origProd);

  ValueNumbering vn;
  vn.addGraph(ref);
  vn.addGraph(prod);
  auto refNumbers = numbersOf(ref, vn), prodNumbers = numbersOf(prod, vn);

  CheckResult result;
  for (size_t i = 0; i < ref.outputs().size(); ++i) {
    const Value *a = ref.outputs()[i], *b = prod.outputs()[i];
    OutputResult out;
    out.name = ref.outputNames()[i];
    if (a->type != b->type) {
      out.verdict = Verdict::NotEquivalent;
      out.reason = std::string(reasons::kTypeMismatch) + ": reference " + a->type.str() + ", production " +
                   b->type.str();
      if (!result.counterexample) {
        Counterexample cex;
        cex.output = out.name;
        cex.note = out.reason + " (any input shows it)";
        result.counterexample = cex;
      }
    } else if (raw.number(origRef.outputs()[i]) == raw.number(origProd.outputs()[i])) {
      out.verdict = Verdict::Equivalent;
      out.level = Level::Bitwise;
      out.reason = reasons::kStructurallyEqual;
    } else if (vn.number(a) == vn.number(b)) {
      out.verdict = Verdict::Equivalent;
      out.level = Level::Bitwise;
      out.reason = reasons::kStructurallyEqual;
      if (coneHasReal(ref, a, refNorm.realValues) || coneHasReal(prod, b, prodNorm.realValues)) {
        out.level = Level::Real;
        out.reason = reasons::kStructurallyEqualReal;
      }
    } else {
      out.verdict = Verdict::Unknown;
      out.reason = reasons::kNoStructuralMatch;
      const Node *r = firstUnmatchedNode(ref, a, vn, prodNumbers);
      const Node *p = firstUnmatchedNode(prod, b, vn, refNumbers);
      if (r) out.referenceSite = siteOf(*r);
      if (p) out.productionSite = siteOf(*p);
      if (p) out.reason += " from production's %" + p->outputs[0]->name + " = " + p->op +
                          (p->loc.known() ? " at " + p->loc.str() : "");
      if (p && !lookupOp(p->op)) out.reason += std::string(" (") + p->op + reasons::kUninterpretedOp + ")";
      out.reason += " (torchtv has no prover for the differing part yet)";
    }
    result.outputs.push_back(std::move(out));
  }
  summarize(result);
  result.match.reference = numbersByName(ref, vn);
  result.match.production = numbersByName(prod, vn);
  result.comparedReference = refCopy;
  result.comparedProduction = prodCopy;
  if (result.verdict == Verdict::Equivalent) result.assumptions.push_back(reasons::kDeterminismAssumption);
  applyRequirement(result, options.require);

  result.stats.referenceNodes = origRef.nodes().size();
  result.stats.productionNodes = origProd.nodes().size();
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace torchtv
