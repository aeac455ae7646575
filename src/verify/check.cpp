#include "src/verify/check.h"

#include <chrono>
#include <set>

#include "ir/diagnostic.h"
#include "src/match/divergence.h"
#include "src/match/value_numbering.h"
#include "src/verify/prover.h"
#include "src/verify/refute.h"
#include "src/verify/self_check.h"

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

std::string typeOf(const eval::EvalTensor &t) { return t.type.str(); }

Counterexample counterexampleOf(const Graph &ref, const Refutation &r, const std::string &output) {
  Counterexample c;
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    TensorValues tv;
    tv.name = ref.inputs()[i]->name;
    tv.type = typeOf(r.inputs[i]);
    for (long double v : r.inputs[i].values) tv.values.push_back(static_cast<double>(v));
    c.inputs.push_back(std::move(tv));
  }
  c.output = output;
  c.index = r.difference.index;
  c.referenceValue = r.difference.referenceValue;
  c.productionValue = r.difference.productionValue;
  c.note = "found by " + r.how + "; confirmed by evaluating both graphs (Note [Confirming counterexamples])";
  return c;
}

// Note [Deciding a differing output]
// 1. Refute first with seeded random inputs (cheap, and a confirmed difference
//    settles the output as not_equivalent with a counterexample).
// 2. Prove: bitwise (Z3, IEEE) then real (normal form, Z3 over the reals),
//    memoized per residual region.
// 3. If a real-level Z3 model over the inputs exists, replay it; a model that
//    does not replay leaves the output unknown, saying so.
void decideDiffering(const Graph &ref, const Graph &prod, const std::vector<size_t> &pending, Prover &prover,
                     CheckResult &result, std::set<std::string> &assumptions) {
  auto confirmer = makeEvaluatorConfirmer();
  for (size_t i : pending) {
    auto refuted = refuteByRandomInputs(ref, prod, {i}, *confirmer);
    if (!refuted) continue;
    OutputResult &out = result.outputs[i];
    out.verdict = Verdict::NotEquivalent;
    out.level = Level::None;
    out.reason = std::string(reasons::kRefuted) + " (" + refuted->how + ")";
    if (!result.counterexample) result.counterexample = counterexampleOf(ref, *refuted, out.name);
  }
  for (size_t i : pending) {
    OutputResult &out = result.outputs[i];
    if (out.verdict == Verdict::NotEquivalent) continue;
    ProofOutcome p = prover.prove(ref.outputs()[i], prod.outputs()[i]);
    if (p.proven) {
      out.verdict = Verdict::Equivalent;
      out.level = p.level;
      out.reason = p.reason;
      assumptions.insert(p.assumptions.begin(), p.assumptions.end());
      continue;
    }
    out.reason = p.reason + "; " + out.reason;
    if (!p.realModel.empty() && p.realModelOverInputs) {
      auto byModel = refuteByModel(ref, prod, {i}, p.realModel, *confirmer);
      if (byModel) {
        out.verdict = Verdict::NotEquivalent;
        out.reason = std::string(reasons::kRefuted) + " (" + byModel->how + ")";
        if (!result.counterexample) result.counterexample = counterexampleOf(ref, *byModel, out.name);
      } else {
        out.reason += "; " + std::string(reasons::kDidNotReplay);
      }
    }
  }
}

}  // namespace

CheckResult checkGraphs(const Graph &ref, const Graph &prod, const CheckOptions &options) {
  auto start = std::chrono::steady_clock::now();
  requireSameInterface(ref, prod);

  ValueNumbering vn;
  vn.addGraph(ref);
  vn.addGraph(prod);
  auto refNumbers = numbersOf(ref, vn), prodNumbers = numbersOf(prod, vn);

  CheckResult result;
  std::vector<size_t> pending;
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
    } else if (vn.number(a) == vn.number(b)) {
      out.verdict = Verdict::Equivalent;
      out.level = Level::Bitwise;
      out.reason = reasons::kStructurallyEqual;
    } else {
      out.verdict = Verdict::Unknown;
      out.reason = reasons::kNoStructuralMatch;
      const Node *r = firstUnmatchedNode(ref, a, vn, prodNumbers);
      const Node *p = firstUnmatchedNode(prod, b, vn, refNumbers);
      if (r) out.referenceSite = siteOf(*r);
      if (p) out.productionSite = siteOf(*p);
      if (p) out.reason += " from production's %" + p->outputs[0]->name + " = " + p->op +
                          (p->loc.known() ? " at " + p->loc.str() : "");
      pending.push_back(i);
    }
    result.outputs.push_back(std::move(out));
  }
  std::unordered_set<int> shared;
  for (int n : refNumbers)
    if (prodNumbers.count(n)) shared.insert(n);
  RegionInputs regionInputs{ref, prod, vn, shared};
  ProverLimits limits;
  limits.rlimit = options.rlimit;
  if (options.timeoutSeconds > 0)
    limits.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(options.timeoutSeconds));
  Prover prover(regionInputs, limits);
  std::set<std::string> assumptions;
  if (!pending.empty()) decideDiffering(ref, prod, pending, prover, result, assumptions);
  summarize(result);
  if (result.verdict == Verdict::Equivalent) {
    result.assumptions.push_back(reasons::kDeterminismAssumption);
    for (const std::string &a : assumptions) result.assumptions.push_back(reasons::kRealAssumptionPrefix + a);
  }
  if (options.selfCheck == SelfCheckMode::On && result.verdict == Verdict::Equivalent)
    result.selfCheck = selfCheck(ref, prod, result);
  applyRequirement(result, options.require);
  result.stats.distinctProofs = prover.distinctProofs();
  result.stats.cacheHits = prover.cacheHits();
  result.stats.solverQueries = prover.solverQueries();

  result.stats.referenceNodes = ref.nodes().size();
  result.stats.productionNodes = prod.nodes().size();
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace torchtv
