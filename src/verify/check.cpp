#include "src/verify/check.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "ir/rewrite.h"
#include "src/match/divergence.h"
#include "src/match/value_numbering.h"
#include "src/normalize/normalize.h"
#include "src/sem/semantics.h"
#include "src/verify/cross_check.h"
#include "src/verify/cut_points.h"
#include "src/verify/localize.h"
#include "src/verify/monolithic.h"
#include "src/verify/prover.h"
#include "src/verify/refute.h"
#include "src/verify/replay_confirm.h"
#include "src/verify/result_cache.h"
#include "src/verify/self_check.h"
#include "src/verify/shrink.h"

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

// Note [Levels of rewrites]: an output equal only through a value that
// normalization produced at level real (an expanded ATen composite, whose
// kernel may round differently from its definition) is at most `real`.
// Per output of g: does its cone (a node's outputs and operands) hold one of
// `real`? One pass in topological order for all outputs.
std::vector<bool> outputsWithRealCone(const Graph &g, const std::unordered_set<const Value *> &real) {
  std::vector<bool> out(g.outputs().size(), false);
  if (real.empty()) return out;
  std::unordered_set<const Node *> realCone;
  for (const auto &n : g.nodes()) {
    bool hit = false;
    for (const Value *v : n->outputs) hit = hit || real.count(v);
    for (const Value *v : n->inputs)
      hit = hit || (v && (real.count(v) || (v->producer && realCone.count(v->producer))));
    if (hit) realCone.insert(n.get());
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const Value *v = g.outputs()[i];
    out[i] = real.count(v) || (v->producer && realCone.count(v->producer));
  }
  return out;
}

// Why a diverging node's op cannot be seen through, or nullptr when it can: a
// random call; a known op without semantics; a custom op (never in the op
// registry) that the fusion library does not define, or whose definition did
// not expand.
const char *opaqueOp(const FusionLibrary &lib, const Node &n, const CheckOptions &options) {
  if (isRandomCall(n.op, n.attrs)) return reasons::kRandomOp;
  if (lookupOp(n.op)) return sem::hasSemantics(n.op) || lib.find(n.op) ? nullptr : reasons::kNoSemanticsOp;
  if (!lib.find(n.op)) return reasons::kUninterpretedOp;
  return options.normalization == Normalization::On ? reasons::kDefinitionNotMatched
                                                    : reasons::kDefinitionNotExpanded;
}

// Why ops in the cones of `outs` stayed uninterpreted although they have a
// definition: it does not fit their call (FusionLibrary::instantiate). One
// " (op...: why)" per op, in name order.
std::string misfitsInCone(const std::vector<const Value *> &outs, const std::map<std::string, std::string> &misfits) {
  if (misfits.empty()) return "";
  std::set<std::string> found;
  std::set<const Node *> seen;
  std::vector<const Node *> work;
  for (const Value *out : outs) work.push_back(out->producer);
  while (!work.empty()) {
    const Node *n = work.back();
    work.pop_back();
    if (!n || !seen.insert(n).second) continue;
    if (misfits.count(n->op)) found.insert(n->op);
    for (const Value *in : n->inputs)
      if (in) work.push_back(in->producer);
  }
  std::string text;
  for (const std::string &op : found) text += " (" + op + reasons::kDefinitionMisfit + misfits.at(op) + ")";
  return text;
}

std::map<std::string, int> numbersByName(const Graph &g, const ValueNumbering &vn) {
  std::map<std::string, int> out;
  for (const Value *v : g.inputs()) out[v->name] = vn.number(v);
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs) out[v->name] = vn.number(v);
  return out;
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
// Every counterexample is then replayed through LibTorch on the original graphs
// (Note [Replaying counterexamples]).
// Records a refutation of output i after replaying it through LibTorch on the
// original graphs (Note [Replaying counterexamples]); false when it did not replay.
bool recordRefutation(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                      Refutation refuted, size_t i, CheckResult &result, CounterexampleConfirmer &confirmer) {
  OutputResult &out = result.outputs[i];
  // The pair's counterexample (the first refutation) is shrunk (Note
  // [Shrinking counterexamples]) and localized (Note [Localized
  // counterexamples]); a shrunk input that does not replay gives way to the
  // input found.
  const bool first = !result.counterexample;
  const Refutation found = refuted;
  std::string shrunk = first ? shrinkRefutation(ref, prod, refuted, confirmer) : "";
  ReplayOutcome replay = replayOnOriginals(origRef, origProd, refuted.inputs, i, refuted.difference.index);
  if (!shrunk.empty() && replay.kind == ReplayOutcome::Kind::DidNotReplay) {
    refuted = found;
    shrunk.clear();
    replay = replayOnOriginals(origRef, origProd, refuted.inputs, i, refuted.difference.index);
  }
  if (replay.kind == ReplayOutcome::Kind::DidNotReplay) {
    out.reason += std::string("; ") + reasons::kDidNotReplay + " through LibTorch (" + replay.detail + ")";
    return false;
  }
  if (replay.kind == ReplayOutcome::Kind::Unavailable || replay.kind == ReplayOutcome::Kind::Crashed) {
    out.reason += std::string("; ") + reasons::kReplayUnavailable + " (" + replay.detail + ")";
    return false;
  }
  std::string evidence = reasons::kReplayedByLibTorch;
  if (replay.kind == ReplayOutcome::Kind::Replayed) {
    refuted.difference.index = replay.index;
    refuted.difference.referenceValue = replay.referenceValue;
    refuted.difference.productionValue = replay.productionValue;
  } else {
    evidence = std::string(reasons::kNotReplayableByLibTorch) + replay.detail;
  }
  out.verdict = Verdict::NotEquivalent;
  out.level = Level::None;
  out.reason = std::string(reasons::kRefuted) + " (" + refuted.how + "; " + evidence + ")";
  if (first) {
    result.counterexample = counterexampleOf(ref, refuted, out.name);
    result.counterexample->note += "; " + evidence;
    result.counterexample->shrunk = shrunk;
    result.counterexample->firstDifference = localizeDifference(ref, prod, refuted.inputs, i);
  }
  return true;
}

void decideDiffering(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                     const std::vector<size_t> &pending, Prover &prover, CheckResult &result,
                     std::set<std::string> &assumptions, const CheckOptions &options) {
  size_t decided = result.outputs.size() - pending.size();
  auto report = [&](const char *stage) {
    if (options.progress) options.progress(stage, decided, result.outputs.size());
  };
  report("searching for counterexamples");
  auto confirmer = makeEvaluatorConfirmer();
  // One evaluation of both graphs per input distribution serves every output
  // (per output, it made deciding quadratic in depth).
  for (Refutation &refuted : refuteByRandomInputs(ref, prod, pending, *confirmer)) {
    recordRefutation(origRef, origProd, ref, prod, refuted, refuted.difference.output, result, *confirmer);
    ++decided;
  }
  report("proving");
  for (size_t i : pending) {
    OutputResult &out = result.outputs[i];
    if (out.verdict == Verdict::NotEquivalent) continue;
    ProofOutcome p = prover.prove(ref.outputs()[i], prod.outputs()[i]);
    ++decided;
    report("proving");
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
      if (!byModel) out.reason += "; " + std::string(reasons::kDidNotReplay);
      else recordRefutation(origRef, origProd, ref, prod, *byModel, i, result, *confirmer);
    }
  }
}

// Note [Monolithic baseline]: each output whole, in one Z3 query; a real
// model is confirmed and replayed as the prover's are. Returns the queries run.
size_t decideAllMonolithic(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                           const ValueNumbering &vn, const std::vector<size_t> &pending, const CheckOptions &options,
                           std::chrono::steady_clock::time_point deadline, CheckResult &result) {
  auto confirmer = makeEvaluatorConfirmer();
  size_t queries = 0;
  for (size_t i : pending) {
    OutputResult &out = result.outputs[i];
    MonolithicOutcome m = decideMonolithic(ref, prod, vn, i, options.rlimit, options.solverMemoryMB, deadline);
    queries += m.queried;
    out.verdict = m.verdict;
    out.level = m.verdict == Verdict::Equivalent ? Level::Real : Level::None;
    out.reason = m.reason;
    if (m.realModel.empty()) continue;
    auto byModel = refuteByModel(ref, prod, {i}, m.realModel, *confirmer);
    if (!byModel) out.reason += "; " + std::string(reasons::kDidNotReplay);
    else recordRefutation(origRef, origProd, ref, prod, *byModel, i, result, *confirmer);
  }
  return queries;
}

bool someOutputDiffers(const Graph &ref, const Graph &prod, const ValueNumbering &vn) {
  for (size_t i = 0; i < ref.outputs().size(); ++i)
    if (vn.number(ref.outputs()[i]) != vn.number(prod.outputs()[i])) return true;
  return false;
}

// Matches, searches cut points and proves: everything a stored decision skips
// (Note [Result cache]). `refNorm`/`prodNorm` gain the real-level cut values.
// Which outputs may go to the prover (empty: all): not those running the code
// refutes when the graphs are past the evaluation budget (where pending is
// trimmed below says why).
std::vector<bool> outputsForTheProver(const Graph &ref, const Graph &prod, const CheckOptions &options) {
  if (!options.capture || !options.capture->eager || !options.capture->eager->ran || withinEvalBudget(ref, prod))
    return {};
  std::vector<bool> left;
  for (const std::string &name : ref.outputNames()) {
    const EagerOutputCheck *c = options.capture->eager->find(name);
    left.push_back(!c || !c->beyondRounding);
  }
  return left;
}

Decision decideOutputs(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                       NormalizeResult &refNorm, NormalizeResult &prodNorm, const CheckOptions &options,
                       const ProverLimits &limits, const std::function<void(const char *, size_t)> &stage) {
  const FusionLibrary &lib = options.fusions ? *options.fusions : bundledFusions();
  // Outputs already equal as written are bitwise-equal whatever normalization
  // does (it may expand a composite both sides call alike, at level real).
  ValueNumbering raw;
  raw.addGraph(origRef);
  raw.addGraph(origProd);

  ValueNumbering vn;
  vn.addGraph(ref);
  vn.addGraph(prod);
  CutPoints cuts;
  if (options.strategy == Strategy::Structural && options.cutPoints == CutPointSearch::On &&
      someOutputDiffers(ref, prod, vn)) {
    stage("merging proven-equal intermediates (cut points)", 0);
    cuts = findCutPoints(ref, prod, limits, outputsForTheProver(ref, prod, options));
    vn = std::move(cuts.numbering);
  }
  // Note [Cut points]: both sides of a real cut are real-level values.
  for (const CutPoint &c : cuts.cuts) {
    if (c.level != Level::Real) continue;
    refNorm.realValues.insert(c.reference);
    prodNorm.realValues.insert(c.production);
  }
  std::unordered_set<const Value *> cutValues;
  for (const CutPoint &c : cuts.cuts) cutValues.insert(c.production);
  std::vector<bool> throughCut = outputsWithRealCone(prod, cutValues);
  auto refNumbers = numbersOf(ref, vn), prodNumbers = numbersOf(prod, vn);
  std::vector<bool> refReal = outputsWithRealCone(ref, refNorm.realValues),
                    prodReal = outputsWithRealCone(prod, prodNorm.realValues);
  auto realInCone = [&](size_t i) { return refReal[i] || prodReal[i]; };
  std::vector<const Node *> refFirstUnmatched = firstUnmatchedNodes(ref, vn, prodNumbers),
                            prodFirstUnmatched = firstUnmatchedNodes(prod, vn, refNumbers);

  CheckResult result;
  std::vector<size_t> pending;
  // Definitions that did not fit their calls, on either side (named in reasons below).
  std::map<std::string, std::string> misfits = refNorm.misfitDefinitions;
  misfits.insert(prodNorm.misfitDefinitions.begin(), prodNorm.misfitDefinitions.end());
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
    } else if (options.strategy == Strategy::Monolithic) {
      pending.push_back(i);
    } else if (raw.number(origRef.outputs()[i]) == raw.number(origProd.outputs()[i])) {
      out.verdict = Verdict::Equivalent;
      out.level = Level::Bitwise;
      out.reason = reasons::kStructurallyEqual;
    } else if (vn.number(a) == vn.number(b)) {
      out.verdict = Verdict::Equivalent;
      out.level = Level::Bitwise;
      out.reason = reasons::kStructurallyEqual;
      if (realInCone(i)) {
        out.level = Level::Real;
        out.reason = reasons::kStructurallyEqualReal;
      }
      if (throughCut[i]) out.reason += std::string("; ") + reasons::kThroughCutPoints;
    } else {
      out.verdict = Verdict::Unknown;
      out.reason = reasons::kNoStructuralMatch;
      const Node *r = refFirstUnmatched[i];
      const Node *p = prodFirstUnmatched[i];
      if (r) out.referenceSite = siteOf(*r);
      if (p) out.productionSite = siteOf(*p);
      if (p) out.reason += " from production's %" + p->outputs[0]->name + " = " + p->op +
                          (p->loc.known() ? " at " + p->loc.str() : "");
      if (p && !misfits.count(p->op))
        if (const char *why = opaqueOp(lib, *p, options)) out.reason += " (" + p->op + why + ")";
      out.reason += misfitsInCone({a, b}, misfits);
      pending.push_back(i);
    }
    result.outputs.push_back(std::move(out));
  }

  std::unordered_set<int> shared;
  for (int n : refNumbers)
    if (prodNumbers.count(n)) shared.insert(n);
  std::unordered_set<int> matrixProducts;
  addMatrixProductNumbers(ref, vn, matrixProducts);
  addMatrixProductNumbers(prod, vn, matrixProducts);
  std::unordered_set<const Value *> constants;
  addConstantValues(ref, constants);
  addConstantValues(prod, constants);
  RegionInputs regionInputs{ref, prod, vn, shared, matrixProducts, constants};
  Prover prover(regionInputs, limits);
  std::set<std::string> assumptions = cuts.assumptions;
  // An output that running the code already refutes (Note [Cross-checks]) can end as nothing but
  // not_equivalent or, were it proven, unknown. Graphs small enough to evaluate still go to the
  // prover, whose random refutation gives a counterexample on the graphs, replayed through
  // LibTorch and localized; past the evaluation budget only Z3 is left, and its time on such an
  // output is spent for nothing.
  if (std::vector<bool> left = outputsForTheProver(ref, prod, options); !left.empty())
    pending.erase(std::remove_if(pending.begin(), pending.end(), [&](size_t i) { return !left[i]; }), pending.end());
  size_t monolithicQueries = 0;
  if (options.strategy == Strategy::Monolithic)
    monolithicQueries = decideAllMonolithic(origRef, origProd, ref, prod, vn, pending, options, limits.deadline, result);
  else if (!pending.empty())
    decideDiffering(origRef, origProd, ref, prod, pending, prover, result, assumptions, options);
  // A bit-for-bit proof about the normalized graphs says nothing bit for bit
  // about an ATen composite expanded at level real (Note [Levels of rewrites]).
  for (size_t i : pending) {
    OutputResult &out = result.outputs[i];
    if (out.verdict == Verdict::Equivalent && throughCut[i]) out.reason += std::string("; ") + reasons::kThroughCutPoints;
    if (out.verdict == Verdict::Equivalent && out.level == Level::Bitwise && realInCone(i)) {
      out.level = Level::Real;
      out.reason += std::string("; ") + reasons::kStructurallyEqualReal;
    }
  }
  Decision decision;
  decision.realAssumptions = std::move(assumptions);
  result.match.reference = numbersByName(ref, vn);
  result.match.production = numbersByName(prod, vn);
  result.stats.distinctProofs = prover.distinctProofs() + cuts.distinctProofs;
  result.stats.cacheHits = prover.cacheHits() + cuts.cacheHits;
  result.stats.proofCacheHits = prover.persistentHits() + cuts.persistentHits;
  result.stats.proofCacheMisses = prover.persistentMisses() + cuts.persistentMisses;
  result.stats.solverQueries = prover.solverQueries() + monolithicQueries + cuts.solverQueries;
  result.stats.cutPoints = cuts.cuts.size();
  result.stats.cutPointAttempts = cuts.attempts;
  decision.result = std::move(result);
  return decision;
}

}  // namespace

CheckResult checkGraphs(const Graph &origRef, const Graph &origProd, const CheckOptions &options) {
  auto start = std::chrono::steady_clock::now();
  requireSameInterface(origRef, origProd);
  std::shared_ptr<Graph> refCopy, prodCopy;
  NormalizeResult refNorm, prodNorm;
  auto stage = [&](const char *name, size_t decided) {
    if (options.progress) options.progress(name, decided, origRef.outputs().size());
  };
  if (options.normalization == Normalization::On) {
    stage("normalizing", 0);
    NormalizeOptions no;
    no.rules = &bundledRules();
    refCopy = cloneGraph(origRef);
    prodCopy = cloneGraph(origProd);
    const FusionLibrary &lib = options.fusions ? *options.fusions : bundledFusions();
    refNorm = normalizeGraph(*refCopy, lib, no);
    prodNorm = normalizeGraph(*prodCopy, lib, no);
  }
  const Graph &ref = refCopy ? *refCopy : origRef;
  const Graph &prod = prodCopy ? *prodCopy : origProd;
  ProverLimits limits;
  limits.rlimit = options.rlimit;
  limits.memoryMB = options.solverMemoryMB;
  limits.cache = options.proofCache;
  limits.assumeRoundedConstants = options.assumeRoundedConstants;
  if (options.timeoutSeconds > 0)
    limits.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(options.timeoutSeconds));

  ResultCache stored(origRef, origProd, ref, prod, options);
  std::optional<Decision> decision = stored.lookup();
  const bool hit = decision.has_value();
  if (!decision) {
    decision = decideOutputs(origRef, origProd, ref, prod, refNorm, prodNorm, options, limits, stage);
    stored.store(*decision);
  }
  CheckResult result = std::move(decision->result);
  result.stats.resultCache = !stored.on() ? "off" : hit ? "hit" : "miss";
  if (options.capture) applyCaptureEvidence(result, *options.capture);
  summarize(result);
  result.comparedReference = refCopy;
  result.comparedProduction = prodCopy;
  if (result.verdict == Verdict::Equivalent) {
    result.assumptions.push_back(reasons::kDeterminismAssumption);
    const std::set<std::string> &real = decision->realAssumptions;
    for (const std::string &a : summarizeRealAssumptions({real.begin(), real.end()})) result.assumptions.push_back(a);
  }
  if (options.selfCheck == SelfCheckMode::On && result.verdict == Verdict::Equivalent) {
    stage("self-check", result.outputs.size());
    EagerEvidence runs;
    result.selfCheck = selfCheck(origRef, origProd, ref, prod, result, runs);
    applyRunEvidence(result, runs, "--self-check", reasons::kKernelsDifferInBits);
  }
  applyRequirement(result, options.require);
  result.stats.referenceNodes = origRef.nodes().size();
  result.stats.productionNodes = origProd.nodes().size();
  result.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace torchtv
