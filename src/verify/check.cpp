#include "src/verify/check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "ir/diagnostic.h"
#include "ir/op_registry.h"
#include "ir/rewrite.h"
#include "src/match/divergence.h"
#include "src/match/value_numbering.h"
#include "src/normalize/normalize.h"
#include "src/sem/semantics.h"
#include "src/verify/code_runs.h"
#include "src/verify/counterexample.h"
#include "src/verify/cross_check.h"
#include "src/verify/cut_points.h"
#include "src/verify/localize.h"
#include "src/verify/monolithic.h"
#include "src/verify/prover.h"
#include "src/verify/reduced_shapes.h"
#include "src/verify/refute.h"
#include "src/verify/result_cache.h"
#include "src/verify/roundings.h"
#include "src/verify/self_check.h"
#include "src/verify/value_difference.h"
#include "src/verify/verdict_table.h"

// Note [Decision procedure]
// checkGraphs, at the bottom of this file, is the whole procedure; each step
// is a stage below, a function from a struct to a struct, in the order it
// runs (docs/architecture.md describes them):
//   normalizeStage   copies of both graphs, normalized (src/normalize)
//   (result cache)   an unchanged, all-equivalent pair answered here (Note [Result cache])
//   matchStage       value numbering, cut points (Note [Cut points]), which
//                    outputs reach a real-level value or a cut
//   classifyStage    per output: types differ, equal as written, equal after
//                    normalization, or pending (the first unmatched node named)
//   proveStage       pending outputs: random refutation, the prover (bitwise,
//                    then real with widening), refutation by the real model,
//                    replay through LibTorch (Note [Deciding a differing output]);
//                    monolithicStage instead for --monolithic
//   levelStage       the levels of equivalent outputs (Note [Levels of rewrites])
//   concludeStage    capture evidence (and its counterexample refined at reduced
//                    shapes, Note [Refuting at reduced shapes]), verdict,
//                    assumptions, --self-check, --require
// The stages share `Compared` (the graphs) and `Progress`; what one stage
// learns reaches the next through its result struct, except the per-output
// results that classifyStage makes, which proveStage and levelStage refine in
// place.

namespace torchtv {

namespace {

// The progress callback of CheckOptions, with the total filled in.
struct Progress {
  const CheckOptions &options;
  size_t total = 0;
  void operator()(const char *stage, size_t decided) const {
    if (options.progress) options.progress(stage, decided, total);
  }
};

// The graphs as given and the graphs compared (normalized copies, or the
// originals with --no-normalize).
struct Compared {
  const Graph &origRef, &origProd;
  const Graph &ref, &prod;
};

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

// ---- normalize ----------------------------------------------------------

struct Normalized {
  std::shared_ptr<Graph> refCopy, prodCopy;  // null: not normalized, the originals are compared
  NormalizeResult refNorm, prodNorm;
  // The reference's index domains, read before normalization expands a kernel (Note [Reference
  // kernel domains]), with the user's declared ones in place; by values of the compared reference.
  ReferenceDomains refDomains;
};

// Note [Reference kernel domains], Note [Declared input domains].
ReferenceDomains referenceDomainsOf(const Graph &refAsCaptured, const CheckOptions &options) {
  ReferenceDomains domains = referenceKernelDomains(refAsCaptured);
  std::vector<DeclaredDomain> declared;
  for (const std::string &text : options.declaredDomains) declared.push_back(parseDeclaredDomain(text));
  applyDeclaredDomains(refAsCaptured, declared, domains);
  return domains;
}

Normalized normalizeStage(const Graph &origRef, const Graph &origProd, const CheckOptions &options,
                          const Progress &progress) {
  Normalized out;
  if (options.normalization == Normalization::Off) {
    out.refDomains = referenceDomainsOf(origRef, options);
    return out;
  }
  progress("normalizing", 0);
  NormalizeOptions no;
  no.rules = &bundledRules();
  out.refCopy = cloneGraph(origRef);
  out.prodCopy = cloneGraph(origProd);
  out.refDomains = referenceDomainsOf(*out.refCopy, options);
  const FusionLibrary &lib = options.fusions ? *options.fusions : defaultFusions();
  out.refNorm = normalizeGraph(*out.refCopy, lib, no);
  out.prodNorm = normalizeGraph(*out.prodCopy, lib, no);
  return out;
}

// The prover's limits, derived from the options (never set elsewhere).
ProverLimits proverLimitsOf(const CheckOptions &options, std::chrono::steady_clock::time_point start) {
  ProverLimits limits;
  limits.rlimit = options.rlimit;
  limits.memoryMB = options.solverMemoryMB;
  limits.cache = options.proofCache;
  if (options.timeoutSeconds > 0)
    limits.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(options.timeoutSeconds));
  return limits;
}

// ---- match ---------------------------------------------------------------

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

bool someOutputDiffers(const Graph &ref, const Graph &prod, const ValueNumbering &vn) {
  for (size_t i = 0; i < ref.outputs().size(); ++i)
    if (vn.number(ref.outputs()[i]) != vn.number(prod.outputs()[i])) return true;
  return false;
}

// Note [Bitwise through composites]
// An output equal after normalization only through an ATen composite that both
// sides call alike (gelu, with a layout round trip on one side's operand) would
// be `real`: the composite's expansion marks its values so (Note [Levels of
// rewrites]), although the two calls compute the same bits. Such outputs are
// matched once more on copies normalized with exact expansions only
// (FusionExpansion::ExactOnly): the composite calls stay as written, no value
// is real-level, every other pass is bitwise, so an output equal there is
// `bitwise`. Paid only when some output would be real that way and both graphs
// call the same inexact composites as often (a composite against its own
// decomposition cannot match there).
std::map<std::string, int> inexactCalls(const Graph &g, const FusionLibrary &lib) {
  std::map<std::string, int> out;
  for (const auto &n : g.nodes())
    if (const auto *defs = lib.find(n->op))
      if (std::any_of(defs->begin(), defs->end(), [](const FusionDefinition &d) { return !d.exact; })) ++out[n->op];
  return out;
}

// Per output: among `candidates`, equal after normalization with exact expansions only.
std::vector<bool> equalThroughExactExpansions(const Compared &g, const CheckOptions &options,
                                              const std::vector<bool> &candidates) {
  std::vector<bool> out(candidates.size(), false);
  const FusionLibrary &lib = options.fusions ? *options.fusions : defaultFusions();
  if (std::none_of(candidates.begin(), candidates.end(), [](bool b) { return b; }) ||
      inexactCalls(g.origRef, lib) != inexactCalls(g.origProd, lib))
    return out;
  NormalizeOptions no;
  no.rules = &bundledRules();
  no.fusions = FusionExpansion::ExactOnly;
  std::shared_ptr<Graph> ref = cloneGraph(g.origRef), prod = cloneGraph(g.origProd);
  NormalizeResult refNorm, prodNorm;
  try {  // a definition the full normalization never instantiates may not fit here: no upgrade then
    refNorm = normalizeGraph(*ref, lib, no);
    prodNorm = normalizeGraph(*prod, lib, no);
  } catch (const std::exception &e) {
    spdlog::info("no bitwise match with exact expansions only: {}", e.what());
    return out;
  }
  ValueNumbering vn;
  vn.addGraph(*ref);
  vn.addGraph(*prod);
  std::vector<bool> refReal = outputsWithRealCone(*ref, refNorm.realValues),
                    prodReal = outputsWithRealCone(*prod, prodNorm.realValues);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = candidates[i] && !refReal[i] && !prodReal[i] &&
             vn.number(ref->outputs()[i]) == vn.number(prod->outputs()[i]);
  return out;
}

struct Matching {
  // The graphs as written: outputs equal here are bitwise-equal whatever
  // normalization does (it may expand a composite both sides call alike, at level real).
  ValueNumbering raw;
  // Per output (empty: none): equal with exact expansions only, so bitwise
  // (Note [Bitwise through composites]).
  std::vector<bool> equalAsCalled;
  ValueNumbering vn;  // the compared graphs, cut points merged
  CutPoints cuts;
  std::unordered_set<int> refNumbers, prodNumbers;
  // Per output: its cone holds a real-level value (either side), or a cut point (production).
  std::vector<bool> realInCone, throughCut;
  // Per output: its cone holds a value normalization made at level real (either side).
  std::vector<bool> realByNormalization;
  // The outputs the cuts were searched for and the prover may see (empty: all).
  std::vector<bool> forTheProver;
};

// Which outputs may go to the prover (empty: all). An output that running the code already
// refutes (Note [Cross-checks]) can end as nothing but not_equivalent or, were it proven,
// unknown. Graphs small enough to evaluate still send it to the prover, whose random refutation
// gives a counterexample on the graphs, replayed through LibTorch and localized; past the
// evaluation budget only Z3 is left, and its time (and the cut search's, for values in no other
// output's cone) on such an output is spent for nothing.
std::vector<bool> outputsForTheProver(const Graph &ref, const Graph &prod, const CheckOptions &options) {
  if (!options.capture || !options.capture->eager || !options.capture->eager->ran || withinEvalBudget(ref, prod))
    return {};
  std::vector<bool> left;
  for (const std::string &name : ref.outputNames()) {
    const EagerOutputCheck *check = options.capture->eager->find(name);
    left.push_back(!check || !check->beyondRounding);
  }
  return left;
}

Matching matchStage(const Compared &g, const Normalized &norm, const CheckOptions &options,
                    const ProverLimits &limits, const Progress &progress) {
  Matching m;
  m.forTheProver = outputsForTheProver(g.ref, g.prod, options);
  m.raw.addGraph(g.origRef);
  m.raw.addGraph(g.origProd);
  m.vn.addGraph(g.ref);
  m.vn.addGraph(g.prod);
  if (options.strategy == Strategy::Structural && options.cutPoints == CutPointSearch::On &&
      someOutputDiffers(g.ref, g.prod, m.vn)) {
    progress("merging proven-equal intermediates (cut points)", 0);
    m.cuts = findCutPoints(g.ref, g.prod, limits, m.forTheProver, &norm.refDomains);
    m.vn = std::move(m.cuts.numbering);
  }
  // Note [Cut points]: both sides of a real (or rounded) cut are real-level values; roundingStage
  // then makes the outputs through a rounded one rounded.
  std::unordered_set<const Value *> refReal = norm.refNorm.realValues, prodReal = norm.prodNorm.realValues;
  std::unordered_set<const Value *> cutValues;
  for (const CutPoint &c : m.cuts.cuts) {
    cutValues.insert(c.production);
    if (c.level != Level::Real && c.level != Level::Rounded) continue;
    refReal.insert(c.reference);
    prodReal.insert(c.production);
  }
  m.throughCut = outputsWithRealCone(g.prod, cutValues);
  std::vector<bool> refNormReal = outputsWithRealCone(g.ref, norm.refNorm.realValues),
                    prodNormReal = outputsWithRealCone(g.prod, norm.prodNorm.realValues);
  for (size_t i = 0; i < refNormReal.size(); ++i) m.realByNormalization.push_back(refNormReal[i] || prodNormReal[i]);
  std::vector<bool> refRealCone = outputsWithRealCone(g.ref, refReal),
                    prodRealCone = outputsWithRealCone(g.prod, prodReal);
  for (size_t i = 0; i < refRealCone.size(); ++i) m.realInCone.push_back(refRealCone[i] || prodRealCone[i]);
  m.refNumbers = numbersOf(g.ref, m.vn);
  m.prodNumbers = numbersOf(g.prod, m.vn);
  if (options.normalization == Normalization::On && options.strategy == Strategy::Structural) {
    std::vector<bool> realOnly(m.realInCone.size());
    for (size_t i = 0; i < realOnly.size(); ++i)
      realOnly[i] = m.realInCone[i] && m.vn.number(g.ref.outputs()[i]) == m.vn.number(g.prod.outputs()[i]) &&
                    m.raw.number(g.origRef.outputs()[i]) != m.raw.number(g.origProd.outputs()[i]);
    m.equalAsCalled = equalThroughExactExpansions(g, options, realOnly);
  }
  return m;
}

// ---- classify ------------------------------------------------------------

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

// What an opaque op's `why` (opaqueOp) means for the hint (Note [What would decide it]).
void addBlocker(std::vector<Blocker> &blockers, const Node &n, const char *why) {
  if (why == reasons::kNoSemanticsOp) addBlocker(blockers, {Obstacle::NoSemantics, n.op});
  if (why == reasons::kUninterpretedOp) addBlocker(blockers, {Obstacle::NoDefinition, n.op});
  if (why == reasons::kDefinitionNotMatched) addBlocker(blockers, {Obstacle::DefinitionMisfit, n.op});
}

// Why ops in the cones of `outs` stayed uninterpreted although they have a
// definition: it does not fit their call (FusionLibrary::instantiate). One
// " (op...: why)" per op, in name order, each a blocker of the hint too.
std::string misfitsInCone(const std::vector<const Value *> &outs, const std::map<std::string, std::string> &misfits,
                          std::vector<Blocker> &blockers) {
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
  for (const std::string &op : found) {
    text += " (" + op + reasons::kDefinitionMisfit + misfits.at(op) + ")";
    addBlocker(blockers, {Obstacle::DefinitionMisfit, op});
  }
  return text;
}

// Output i has types that differ: not_equivalent, whatever the input (Note [Localized type
// differences]); `r`/`p`: where matching lost track on each side, null when unknown.
void typesDiffer(const Graph &ref, const Graph &prod, size_t i, const Node *r, const Node *p, OutputResult &out,
                 CheckResult &result) {
  applyEvidence(out, Evidence::TypesDiffer);
  out.reason = std::string(reasons::kTypeMismatch) + ": reference " + ref.outputs()[i]->type.str() + ", production " +
               prod.outputs()[i]->type.str();
  if (!result.counterexample) {
    result.counterexample = typeDifferenceCounterexample(ref, prod, i, out.reason + " (any input shows it)", r, p);
    const Site &where = result.counterexample->firstDifference->production;
    if (where.op != "input") out.productionSite = where;
    if (result.counterexample->firstDifference->reference.op != "input")
      out.referenceSite = result.counterexample->firstDifference->reference;
  }
}

struct Classified {
  CheckResult result;            // every output, those settled here with their verdict
  std::vector<size_t> structural;  // equal after normalization (levelStage settles their level)
  std::vector<size_t> pending;     // left to proveStage (or monolithicStage)
};

Classified classifyStage(const Compared &g, const Normalized &norm, const Matching &m, const CheckOptions &options) {
  const FusionLibrary &lib = options.fusions ? *options.fusions : defaultFusions();
  std::vector<const Node *> refFirstUnmatched = firstUnmatchedNodes(g.ref, m.vn, m.prodNumbers),
                            prodFirstUnmatched = firstUnmatchedNodes(g.prod, m.vn, m.refNumbers);
  const GraphSites refSites(g.ref), prodSites(g.prod);  // Note [Runs of a line]
  // Definitions that did not fit their calls, on either side (named in reasons below).
  std::map<std::string, std::string> misfits = norm.refNorm.misfitDefinitions;
  misfits.insert(norm.prodNorm.misfitDefinitions.begin(), norm.prodNorm.misfitDefinitions.end());
  Classified c;
  CheckResult &result = c.result;
  for (size_t i = 0; i < g.ref.outputs().size(); ++i) {
    const Value *a = g.ref.outputs()[i], *b = g.prod.outputs()[i];
    OutputResult out;
    out.name = g.ref.outputNames()[i];
    if (a->type != b->type) {
      typesDiffer(g.ref, g.prod, i, refFirstUnmatched[i], prodFirstUnmatched[i], out, result);
    } else if (options.strategy == Strategy::Monolithic) {
      c.pending.push_back(i);
    } else if (m.raw.number(g.origRef.outputs()[i]) == m.raw.number(g.origProd.outputs()[i]) ||
               (i < m.equalAsCalled.size() && m.equalAsCalled[i])) {
      applyEvidence(out, Evidence::EqualAsWritten);
      out.reason = reasons::kStructurallyEqual;
    } else if (m.vn.number(a) == m.vn.number(b)) {
      // Bitwise here; levelStage lowers it where a real-level rewrite or cut lies on the way.
      applyEvidence(out, Evidence::EqualAfterNormalization, Level::Bitwise);
      out.reason = reasons::kStructurallyEqual;
      c.structural.push_back(i);
    } else {
      applyEvidence(out, Evidence::NotProven);
      out.reason = reasons::kNoStructuralMatch;
      const Node *r = refFirstUnmatched[i];
      const Node *p = prodFirstUnmatched[i];
      if (r) out.referenceSite = refSites(*r);
      if (p) out.productionSite = prodSites(*p);
      if (p) out.reason += " from production's %" + p->outputs[0]->name + " = " + p->op +
                          (p->loc.known() ? " at " + p->loc.str() : "");
      if (p && !misfits.count(p->op))
        if (const char *why = opaqueOp(lib, *p, options)) {
          out.reason += " (" + p->op + why + ")";
          addBlocker(out.blockers, *p, why);
        }
      out.reason += misfitsInCone({a, b}, misfits, out.blockers);
      c.pending.push_back(i);
    }
    result.outputs.push_back(std::move(out));
  }
  return c;
}

std::vector<size_t> worthProving(const Matching &m, const Classified &c) {
  std::vector<size_t> pending = c.pending;
  if (!m.forTheProver.empty())
    pending.erase(std::remove_if(pending.begin(), pending.end(), [&](size_t i) { return !m.forTheProver[i]; }),
                  pending.end());
  return pending;
}

// ---- prove ---------------------------------------------------------------

// What deciding the pending outputs adds besides their verdicts.
struct Proved {
  AssumptionCounts assumptions;  // of real-level proofs, counted per output
  // Outputs proven bitwise over the graph inputs alone: no cut point on the way counts (Note
  // [Widening at level bitwise] in src/verify/prover.cpp).
  std::set<size_t> overInputs;
  size_t distinctProofs = 0, cacheHits = 0, persistentHits = 0, persistentMisses = 0, solverQueries = 0;
};

// Note [Deciding a differing output]
// 1. Refute first with seeded random inputs (cheap, and a confirmed difference
//    settles the output as not_equivalent with a counterexample).
// 2. Prove: bitwise (Z3, IEEE) then real (normal form, Z3 over the reals),
//    memoized per residual region.
// 3. If a real-level Z3 model over the inputs exists, replay it; a model that
//    does not replay leaves the output unknown, saying so.
// Every counterexample is then replayed through LibTorch on the original graphs
// (Note [Replaying counterexamples]).
// recordRefutation (counterexample.h) records each refutation.
// Whether a difference the evaluator confirmed is small enough to be the rounding of constants or
// of a narrowing cast, so that the rounding prover is asked before refuting. A difference past 100
// roundings of the output's dtype, relative to its magnitude, is refuted without that proof. The
// proof widens the frontier as the prover's does (without Z3): a hand-written backward recomputes
// what autograd's reads from the forward, so only the widened region shows its rounded constant
// (Megatron's bias-GELU, tests/golden/prover/rounding/megatron_bias_gelu_back_f32.tvir). The normal
// form's caps bound what a real bug's widened output costs (kMaxKeyBytes in
// src/sem/normal_form.cpp: tests/browser/layers3_eps.tvir, a wrong eps, is refuted in about a
// second and 340 MB). Known limit: a rounded constant amplified more than 100 times by an
// ill-conditioned formula is refuted.
// The threshold is Note [When values differ]'s sixth comparison (src/verify/value_difference.h).
bool couldBeRounding(const ConfirmedDifference &d, DType dtype) {
  return !d.productionRaises && differ::mayBeRounding(d.referenceValue, d.productionValue, dtype);
}

// Note [Outputs decided before the time limit]: what the engine has settled so far, published.
using PublishDecided = std::function<void(const CheckResult &sofar, const Proved &proved, const std::vector<size_t> &proven)>;

// TORCHTV_ENGINE_FAULT=stall-proving: the engine sleeps before proving, past any deadline, as a
// stage that runs long between its checks of the time would (fault injection for the tests of Note
// [Outputs decided before the time limit]).
void stallIfAsked() {
  const char *fault = std::getenv("TORCHTV_ENGINE_FAULT");
  if (fault && std::strcmp(fault, "stall-proving") == 0) std::this_thread::sleep_for(std::chrono::hours(1));
}

Proved proveStage(const Compared &g, const Matching &m, const ReferenceDomains &refDomains, const std::vector<size_t> &pending,
                  const ProverLimits &limits, const Progress &progress, const PublishDecided &publish, CheckResult &result) {
  Proved proved;
  if (pending.empty()) return proved;
  std::unordered_set<int> shared;
  for (int n : m.refNumbers)
    if (m.prodNumbers.count(n)) shared.insert(n);
  std::unordered_set<int> matrixProducts;
  addMatrixProductNumbers(g.ref, m.vn, matrixProducts);
  addMatrixProductNumbers(g.prod, m.vn, matrixProducts);
  std::unordered_set<const Value *> constants;
  addConstantValues(g.ref, constants);
  addConstantValues(g.prod, constants);
  const IndexDomains indexDomains = indexDomainsByNumber(g.ref, g.prod, m.vn, refDomains);
  OversizedDefinitions oversized;  // Note [Oversized definitions]
  RegionInputs regionInputs{g.ref, g.prod, m.vn, shared, matrixProducts, constants, &indexDomains, &oversized};
  Prover prover(regionInputs, limits);

  size_t decided = result.outputs.size() - pending.size();
  progress("searching for counterexamples", decided);
  auto confirmer = makeEvaluatorConfirmer();
  ProverLimits normalFormOnly = limits;
  normalFormOnly.solver = false;
  normalFormOnly.cache = nullptr;   // its "not proven" answers are not the cut search's
  Prover roundingProver(regionInputs, normalFormOnly);
  // One evaluation of both graphs per input distribution serves every output
  // (per output, it made deciding quadratic in depth).
  for (Refutation &refuted : refuteByRandomInputs(g.ref, g.prod, pending, *confirmer, kEvalBudget, &refDomains)) {
    // Never refute from rounding (Note [Equivalence up to rounding]): the evaluator confirms any
    // difference over the reals, also that of two constants one rounding apart in the dtype the
    // code computes in; such an output is left to the prover, which proves it rounded.
    const Value *ref = g.ref.outputs()[refuted.difference.output], *prod = g.prod.outputs()[refuted.difference.output];
    if (couldBeRounding(refuted.difference, ref->type.dtype)) {
      const ProofOutcome p = roundingProver.prove(ref, prod);
      if (p.proven && (p.level == Level::Rounded || roundedCutInCone(m.cuts.cuts, ref, prod))) {
        applyEvidence(result.outputs[refuted.difference.output], Evidence::DiffersByRoundingOnly);
        continue;
      }
    }
    recordRefutation(g.origRef, g.origProd, g.ref, g.prod, refuted, refuted.difference.output, result, *confirmer);
    ++decided;
  }
  progress("proving", decided);
  std::vector<size_t> proven;
  for (size_t i : pending) {
    OutputResult &out = result.outputs[i];
    if (out.verdict == Verdict::NotEquivalent) continue;
    stallIfAsked();
    // Note [Confirming counterexamples]: the evaluator shows a NaN or infinity against another
    // value that LibTorch could not replay; no proof over the reals speaks to it: unknown.
    if (out.reason.find(reasons::kNonFiniteNotReplayed) != std::string::npos) continue;
    ProofOutcome p = prover.prove(g.ref.outputs()[i], g.prod.outputs()[i]);
    ++decided;
    progress("proving", decided);
    if (p.proven) {
      applyEvidence(out, p.level == Level::Rounded ? Evidence::ProvenRounded : Evidence::Proven, p.level);
      out.reason = p.reason;
      out.roundings = p.roundings;
      for (const sem::Assumption &a : p.assumptions) ++proved.assumptions[a];
      if (p.level == Level::Bitwise && p.provenAt == Frontier::Inputs && m.realInCone[i] &&
          prover.bitwiseOverInputs(g.ref.outputs()[i], g.prod.outputs()[i]))
        proved.overInputs.insert(i);
      proven.push_back(i);
      publish(result, proved, proven);
      continue;
    }
    applyEvidence(out, Evidence::NotProven);
    out.reason = p.reason + "; " + out.reason;
    for (const Blocker &b : p.blockers) addBlocker(out.blockers, b);
    if (!p.realModel.empty() && p.realModelOverInputs) {
      auto byModel = refuteByModel(g.ref, g.prod, {i}, p.realModel, *confirmer, &refDomains);
      if (byModel) {
        recordRefutation(g.origRef, g.origProd, g.ref, g.prod, *byModel, i, result, *confirmer);
      } else {
        applyEvidence(out, Evidence::DidNotReplay);
        out.reason += "; " + std::string(reasons::kDidNotReplay);
      }
    }
  }
  proved.distinctProofs = prover.distinctProofs();
  proved.cacheHits = prover.cacheHits();
  proved.persistentHits = prover.persistentHits();
  proved.persistentMisses = prover.persistentMisses();
  proved.solverQueries = prover.solverQueries();
  return proved;
}

// Note [Monolithic baseline]: each output whole, in one Z3 query; a real
// model is confirmed and replayed as the prover's are.
Proved monolithicStage(const Compared &g, const Matching &m, const std::vector<size_t> &pending,
                       const ProverLimits &limits, CheckResult &result) {
  Proved proved;
  auto confirmer = makeEvaluatorConfirmer();
  for (size_t i : pending) {
    OutputResult &out = result.outputs[i];
    MonolithicOutcome mo = decideMonolithic(g.ref, g.prod, m.vn, i, limits.rlimit, limits.memoryMB, limits.deadline);
    proved.solverQueries += mo.queried;
    applyEvidence(out, mo.proven ? Evidence::Proven : Evidence::NotProven, Level::Real);
    out.reason = mo.reason;
    if (mo.realModel.empty()) continue;
    auto byModel = refuteByModel(g.ref, g.prod, {i}, mo.realModel, *confirmer);
    if (byModel) {
      recordRefutation(g.origRef, g.origProd, g.ref, g.prod, *byModel, i, result, *confirmer);
    } else {
      applyEvidence(out, Evidence::DidNotReplay);
      out.reason += "; " + std::string(reasons::kDidNotReplay);
    }
  }
  return proved;
}

// ---- levels --------------------------------------------------------------

// Note [Levels of rewrites]: a bit-for-bit match or proof about the normalized
// graphs says nothing bit for bit about an ATen composite expanded at level
// real, nor about a real cut point on the way; an output equal through either
// is at most real. The one place that settles it, for the outputs matched after
// normalization (whose reason becomes the real one) and for those decided by
// proveStage or monolithicStage (whose reason gains it). Outputs equal as written
// stay bitwise, and so do those proven bit for bit over the graph inputs alone
// (Proved::overInputs) with no real-level normalization on the way: such a proof
// reads no cut point.
void levelStage(const Matching &m, const Classified &c, const std::vector<size_t> &decided, const Proved &proved,
                CheckResult &result) {
  for (size_t i : c.structural) {
    OutputResult &out = result.outputs[i];
    if (m.realInCone[i]) {
      applyEvidence(out, Evidence::RealOnTheWay);
      out.reason = reasons::kStructurallyEqualReal;
    }
    if (m.throughCut[i]) out.reason += std::string("; ") + reasons::kThroughCutPoints;
  }
  for (size_t i : decided) {
    OutputResult &out = result.outputs[i];
    if (out.verdict != Verdict::Equivalent) continue;
    if (out.level == Level::Bitwise && proved.overInputs.count(i) && !m.realByNormalization[i]) continue;
    if (m.throughCut[i]) out.reason += std::string("; ") + reasons::kThroughCutPoints;
    if (m.realInCone[i] && applyEvidence(out, Evidence::RealOnTheWay))
      out.reason += std::string("; ") + reasons::kStructurallyEqualReal;
  }
}

// ---- the decision that the result cache keeps --------------------------------

std::map<std::string, int> numbersByName(const Graph &g, const ValueNumbering &vn) {
  std::map<std::string, int> out;
  for (const Value *v : g.inputs()) out[v->name] = vn.number(v);
  for (const auto &n : g.nodes())
    for (const Value *v : n->outputs) out[v->name] = vn.number(v);
  return out;
}

// The real-level assumptions of the cut points and of the prover's proofs, with their counts.
AssumptionCounts realAssumptionsOf(const Matching &m, const Proved &proved) {
  AssumptionCounts out = m.cuts.assumptions;
  for (const auto &[a, count] : proved.assumptions) out[a] += count;
  return out;
}

Decision decisionOf(const Compared &g, const Matching &m, CheckResult result, const Proved &proved) {
  Decision decision;
  decision.realAssumptions = realAssumptionsOf(m, proved);
  result.match.reference = numbersByName(g.ref, m.vn);
  result.match.production = numbersByName(g.prod, m.vn);
  result.stats.distinctProofs = proved.distinctProofs + m.cuts.distinctProofs;
  result.stats.cacheHits = proved.cacheHits + m.cuts.cacheHits;
  result.stats.proofCacheHits = proved.persistentHits + m.cuts.persistentHits;
  result.stats.proofCacheMisses = proved.persistentMisses + m.cuts.persistentMisses;
  result.stats.solverQueries = proved.solverQueries + m.cuts.solverQueries;
  result.stats.cutPoints = m.cuts.cuts.size();
  result.stats.cutPointAttempts = m.cuts.attempts;
  result.stats.cutPointsReplayed = m.cuts.replayed;
  decision.result = std::move(result);
  return decision;
}

// Final: the check's result. Provisional: the result the watchdog may print (Note [Outputs decided
// before the time limit]), without the stages that only refine a refutation or run code (it has no
// refutation) and without --self-check.
enum class Conclusion { Final, Provisional };
CheckResult concludeStage(const Compared &g, Decision decision, const CheckOptions &options, const Progress &progress,
                          Conclusion conclusion);

// Everything a stored decision skips (Note [Result cache]).
Decision decideOutputs(const Compared &g, const Normalized &norm, const CheckOptions &options,
                       const ProverLimits &limits, const Progress &progress) {
  const Matching m = matchStage(g, norm, options, limits, progress);
  Classified c = classifyStage(g, norm, m, options);
  PublishDecided publish = [&](const CheckResult &sofar, const Proved &proved, const std::vector<size_t> &proven) {
    if (!options.decidedSoFar) return;
    CheckResult r = sofar;
    levelStage(m, c, proven, proved, r);
    settleRoundedLevels(g.ref, g.prod, m.cuts.cuts, r.outputs);
    for (OutputResult &out : r.outputs) {
      if (out.verdict == Verdict::Equivalent) continue;
      OutputResult undecided;
      undecided.name = out.name;
      applyEvidence(undecided, Evidence::TimedOut);
      undecided.reason = reasons::kNotDecidedInTime;
      out = std::move(undecided);
    }
    // Not decisionOf: the value numbers and statistics it adds are the final result's, and
    // computing them after every proof would cost a walk of both graphs each time.
    Decision d;
    d.realAssumptions = realAssumptionsOf(m, proved);
    d.result = std::move(r);
    options.decidedSoFar->publish(concludeStage(g, std::move(d), options, progress, Conclusion::Provisional));
  };
  publish(c.result, Proved{}, {});
  const std::vector<size_t> pending = worthProving(m, c);
  const Proved proved = options.strategy == Strategy::Monolithic
                            ? monolithicStage(g, m, pending, limits, c.result)
                            : proveStage(g, m, norm.refDomains, pending, limits, progress, publish, c.result);
  levelStage(m, c, pending, proved, c.result);
  settleRoundedLevels(g.ref, g.prod, m.cuts.cuts, c.result.outputs);  // Note [Equivalence up to rounding]
  return decisionOf(g, m, std::move(c.result), proved);
}

// Note [Refuted before the shape-only capture] in src/capture/torchtv_capture/capture.py: graphs
// captured at a shape-only pair's small_inputs() only, because its runs there refuted it. Nothing
// is proven at shapes the user did not ask about: an output is not_equivalent when its types
// differ (at these shapes too, a real input shows it) or when the runs refute it (concludeStage,
// with the counterexample refined on these graphs), else unknown, saying why.
Decision reducedOnlyDecision(const Graph &ref, const Graph &prod) {
  Decision decision;
  CheckResult &result = decision.result;
  for (size_t i = 0; i < ref.outputs().size(); ++i) {
    OutputResult out;
    out.name = ref.outputNames()[i];
    if (ref.outputs()[i]->type != prod.outputs()[i]->type) {
      typesDiffer(ref, prod, i, nullptr, nullptr, out, result);
    } else {
      applyEvidence(out, Evidence::ReducedOnlyUnchecked);
      out.reason = reasons::kReducedOnlyUnchecked;
    }
    result.outputs.push_back(std::move(out));
  }
  return decision;
}

// ---- conclude ------------------------------------------------------------

// What every check does after the decision, stored or not: the capture's
// evidence (Note [Cross-checks]), the verdict, the assumptions, --self-check
// and --require (Conclusion: final or provisional).
CheckResult concludeStage(const Compared &g, Decision decision, const CheckOptions &options, const Progress &progress,
                          Conclusion conclusion) {
  CheckResult result = std::move(decision.result);
  const bool final = conclusion == Conclusion::Final;
  if (options.capture) {
    result.warnings = options.capture->warnings;
    applyCaptureEvidence(result, *options.capture);
    const std::optional<EagerEvidence> &runs = options.capture->eager;
    const FusionLibrary &fusions = options.fusions ? *options.fusions : defaultFusions();
    if (!final) {
      // a provisional result has no refutation to refine (Note [Outputs decided before the time limit])
    } else if (runs && runs->reducedShapes)
      refineReducedShapeCounterexample(result, runs, options.reducedReference, options.reducedProduction, fusions,
                                       options.capture->reducedOnly ? RefinedOn::ReducedOnly : RefinedOn::ReducedAgain);
    else
      refineReducedShapeCounterexample(result, runs, &g.origRef, &g.origProd, fusions, RefinedOn::Captured);
  }
  if (final) applyCodeRuns(result, options.runCode);
  summarize(result);
  if (result.verdict == Verdict::Equivalent) {
    result.assumptions.push_back(reasons::kDeterminismAssumption);
    for (const std::string &a : summarizeRealAssumptions(decision.realAssumptions)) result.assumptions.push_back(a);
  }
  if (final && options.selfCheck == SelfCheckMode::On && result.verdict == Verdict::Equivalent) {
    progress("self-check", result.outputs.size());
    EagerEvidence runs;
    result.selfCheck = selfCheck(g.origRef, g.origProd, g.ref, g.prod, result, runs);
    applyRunEvidence(result, runs, "--self-check", reasons::kKernelsDifferInBits, /*refutes=*/false);
  }
  applyRequirement(result, options.require);
  if (options.capture && options.capture->eager) describeRunsOfUndecided(result, *options.capture->eager);
  // Note [What would decide it]
  for (OutputResult &o : result.outputs)
    if (o.verdict == Verdict::Unknown)
      o.toDecide = whatWouldDecide(o.blockers, {options.rlimit, options.solverMemoryMB, options.timeoutSeconds});
  return result;
}

}  // namespace

// Note [Decision procedure]: the stages, top to bottom.
CheckResult checkGraphs(const Graph &origRef, const Graph &origProd, const CheckOptions &options) {
  const auto start = std::chrono::steady_clock::now();
  requireSameInterface(origRef, origProd);
  const Progress progress{options, origRef.outputs().size()};
  if (options.capture && options.capture->reducedOnly) {
    CheckResult result = concludeStage({origRef, origProd, origRef, origProd}, reducedOnlyDecision(origRef, origProd),
                                       options, progress, Conclusion::Final);
    result.stats.referenceNodes = origRef.nodes().size();
    result.stats.productionNodes = origProd.nodes().size();
    result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  const Normalized norm = normalizeStage(origRef, origProd, options, progress);
  const Compared graphs{origRef, origProd, norm.refCopy ? *norm.refCopy : origRef,
                        norm.prodCopy ? *norm.prodCopy : origProd};
  const ProverLimits limits = proverLimitsOf(options, start);

  ResultCache stored(origRef, origProd, graphs.ref, graphs.prod, options);
  std::optional<Decision> decision = stored.lookup();
  const bool hit = decision.has_value();
  if (!hit) {
    decision = decideOutputs(graphs, norm, options, limits, progress);
    stored.store(*decision);
  }
  decision->result.stats.resultCache = !stored.on() ? "off" : hit ? "hit" : "miss";

  CheckResult result = concludeStage(graphs, std::move(*decision), options, progress, Conclusion::Final);
  result.comparedReference = norm.refCopy;
  result.comparedProduction = norm.prodCopy;
  result.stats.referenceNodes = origRef.nodes().size();
  result.stats.productionNodes = origProd.nodes().size();
  result.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace torchtv
