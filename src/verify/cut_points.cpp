#include "src/verify/cut_points.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <spdlog/spdlog.h>

#include "src/eval/concrete.h"
#include "src/match/divergence.h"
#include "src/match/graph_structure.h"
#include "src/verify/cut_record.h"
#include "src/verify/refute.h"
#include "src/verify/roundings.h"
#include "src/verify/verdict.h"

namespace torchtv {

namespace {

constexpr long double kRelativeTolerance = 1e-12L;
// A cut is worth it when its region is small (Note [Cut points]); a candidate
// whose region is not small is rarely provable and costly to fail.
// (500 terms sufficed for every cut of the benchmark's transformer.)
constexpr size_t kMaxRegionTerms = 5000;
constexpr double kQuerySeconds = 2;
// Reference values tried per production value, by structure and again by
// evaluation (Note [Cut points]); one proof is enough.
constexpr size_t kCandidatesPerValue = 3;
// Note [Solver failures in the cut search]
// Z3 tries only candidates an evaluation found to agree, but values that agree
// to 1e-12 and are not equal over the reals are common in real models: the
// attention of torch's decomposed sdpa scales q and k each by sqrt(scale),
// whose square is not the traced scale, so every value after the scores
// agrees and fails (Llama inference: 118 candidates, 89 queries, past 120 s
// once its embedding of 100 rows could be evaluated; 16 failures still took
// 28 s of 49). After this many candidates that Z3 did not prove either, the
// search goes on with the normal form alone: a count, not a time, so that the
// verdict does not depend on the machine's load. Every cut that Z3 proves in
// tests/inductor and the golden cut_points, train and attention pairs comes
// before any failure (measured, session 11): the bound loses none of them.
constexpr size_t kMaxSolverFailures = 4;
// Bounds of the structural search: values walked back from a production value
// to its leaves, and reference values walked forward from each leaf.
constexpr size_t kMaxSupportWalk = 300;
constexpr size_t kMaxNeighbourhood = 400;

using Trace = std::map<const Value *, eval::EvalTensor>;

bool evaluatesOutputs(const Graph &g, const Trace &trace) {
  return std::all_of(g.outputs().begin(), g.outputs().end(), [&](const Value *v) { return !v || trace.count(v); });
}

bool allElementsEqual(const eval::EvalTensor &t) {
  if (t.values.size() < 2) return false;
  for (long double x : t.values)
    if (!(x == t.values[0])) return false;  // a NaN is not equal to itself: not constant
  return true;
}

// Note [Cut points], step 1: agreement within a tolerance of the tensors'
// scale; non-finite elements must agree exactly (NaN with NaN).
bool agree(const eval::EvalTensor &a, const eval::EvalTensor &b) {
  long double scale = 0;
  for (const auto *t : {&a, &b})
    for (long double x : t->values)
      if (std::isfinite(x)) scale = std::max(scale, std::fabs(x));
  for (size_t i = 0; i < a.values.size(); ++i) {
    long double x = a.values[i], y = b.values[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return false;
      continue;
    }
    if (std::isinf(x) || std::isinf(y)) {
      if (x != y) return false;
      continue;
    }
    if (std::fabs(x - y) > kRelativeTolerance * scale) return false;
  }
  return true;
}

// The frontier leaves of v: the numbers at which a walk back from v through
// its operands stops, at graph inputs and at values both graphs compute.
// nullopt when the walk passes kMaxSupportWalk values (a region that large is
// no cut: Note [Cut points]).
std::optional<std::set<int>> supportOf(const Value *v, const GraphStructure &g, const ValueNumbering &vn,
                                       const std::unordered_set<int> &shared) {
  std::set<int> leaves;
  auto inner = [&](const Value *x) { return x->producer && !shared.count(vn.number(x)); };
  bool whole = g.reach({v}, GraphStructure::Direction::Operands, inner, kMaxSupportWalk,
                       [&](const Value *x) {
                         if (x != v && !inner(x)) leaves.insert(vn.number(x));
                       });
  if (!whole) return std::nullopt;
  return leaves;
}

// Note [Cut candidates from structure]
// Each failed candidate costs a region and its normal form; ranked by the
// number of leaves that reach them alone, the benchmark's transformer tried 3
// candidates for most unmatched production values (4,323 for 834 cuts at 64
// realistic layers). The graphs' structure (Note [Graph structure]) orders
// them: reference values at the same position in their post-dominator tree as
// the production value come first: both interior to an expression (their
// nearest post-dominator another value, not an output), or both post-dominated
// by the outputs alone (the residual stream, the gradient flowing down the
// layers, a layer's output read by two branches). Then, as before, those
// reached from the most of the production value's leaves (breadth first,
// forwards through values that are not shared), and values only the reference
// computes before values both compute. This only orders the search; a cut is
// still merged only when proven.
//
// Skipping production values interior to one expression altogether (leaving
// them to their post-dominator's region) cut the attempts four-fold on the
// benchmark, but lost cuts that Inductor's attention backward needs (a
// log-sum-exp interior to its recomputed softmax: tests/inductor fixture
// block_nomask_cpu_training_001_joint went from equivalent to unknown), so no
// value is skipped: a cut the search misses is a verdict lost.

// The single pass of Note [Cut points]: production is numbered node by node
// against the reference's numbers; an unmatched value is proven equal to a
// reference value, if it can be, before any of its users is numbered.
class CutSearch {
public:
  CutSearch(const Graph &ref, const Graph &prod, const ProverLimits &limits, const std::vector<bool> &serve,
            const ReferenceDomains &referenceDomains, CutPoints &out)
      : ref_(ref), prod_(prod), limits_(limits), serve_(serve), out_(out),
        regionInputs_{ref, prod, out.numbering, shared_, matrixProducts_, constants_} {
    addConstantValues(ref, constants_);
    addConstantValues(prod, constants_);
    ValueNumbering &vn = out_.numbering;
    vn.addGraph(ref);
    vn.bindInputs(prod);
    refNumbers_ = numbersOf(ref, vn);
    addMatrixProductNumbers(ref, vn, matrixProducts_);
    for (const Value *v : prod.inputs()) shared_.insert(vn.number(v));
    for (const auto &n : ref.nodes())
      for (const Value *v : n->outputs) byNumber_[vn.number(v)].push_back(v);
    for (const Value *v : ref.inputs()) byNumber_[vn.number(v)].push_back(v);
    // Note [Index inputs in range]: the reference's values and the inputs (production's own values are
    // not numbered yet: a cut between them is proven without their ranges).
    indexDomains_ = indexDomainsByNumber(ref, prod, vn, referenceDomains);
    regionInputs_.indexDomains = &indexDomains_;
    ProverLimits cutLimits = cutSearchLimits(limits);
    evaluated_ = evaluate();
    // Most candidates fail, and only the normal form is cheap enough to try
    // them all; Z3 gets the ones an evaluation found to agree.
    solverProver_.emplace(regionInputs_, cutLimits);
    cutLimits.solver = false;
    normalFormProver_.emplace(regionInputs_, cutLimits);
    // Note [Cut search record]: only a search that evaluates nothing is a function of its key.
    // Its key is the graphs: cuts proven under a range the user declared (Note [Declared input
    // domains]) must not answer a run without it, so such a search is not recorded.
    bool declared = std::any_of(referenceDomains.begin(), referenceDomains.end(),
                                [](const auto &d) { return d.second.declared(); });
    if (!evaluated_ && !declared) record_.emplace(ref, prod, cutLimits);
  }

  void run() {
    ValueNumbering &vn = out_.numbering;
    std::unordered_set<const Node *> live = serve_.empty() ? liveNodes(prod_) : liveNodes(prod_, serve_);
    std::unordered_set<const Value *> outputs(prod_.outputs().begin(), prod_.outputs().end());
    const bool recording = record_ && record_->on();
    for (const auto &node : prod_.nodes()) {
      vn.numberNode(*node);
      const bool isLive = live.count(node.get()) != 0;
      if (recording) record_->step(*node, vn, refNumbers_);
      for (size_t i = 0; i < node->outputs.size(); ++i) {
        const Value *p = node->outputs[i];
        // Outputs are left to the prover proper, which says why they are
        // equal (the level and the reason of each output's verdict).
        if (!refNumbers_.count(vn.number(p)) && isLive && !outputs.count(p) &&
            std::chrono::steady_clock::now() < limits_.deadline)
          decide(p);
        if (isMatrixProduct(node->op)) matrixProducts_.insert(vn.number(p));
        if (refNumbers_.count(vn.number(p))) shared_.insert(vn.number(p));
      }
    }
    // A decision the deadline cut short is no decision (Note [Cut search record]).
    if (recording && std::chrono::steady_clock::now() < limits_.deadline) record_->save();
    for (const Prover *p : {&*normalFormProver_, &*solverProver_}) {
      out_.distinctProofs += p->distinctProofs();
      out_.cacheHits += p->cacheHits();
      out_.persistentHits += p->persistentHits();
      out_.persistentMisses += p->persistentMisses();
      out_.solverQueries += p->solverQueries();
    }
  }

private:
  // The evaluation only proposes (Note [Non-finite floats converted to integers] in src/eval/concrete.h).
  void traceBoth(const std::vector<eval::EvalTensor> &inputs) {
    refTrace_ = eval::evaluateWhatCan(ref_, inputs, eval::Precision::Wide, eval::NonFiniteToInteger::Smallest);
    prodTrace_ = eval::evaluateWhatCan(prod_, inputs, eval::Precision::Wide, eval::NonFiniteToInteger::Smallest);
  }

  // Note [Cut points], step 1, when the dims allow: one seeded evaluation.
  bool evaluate() {
    if (!withinEvalBudget(ref_, prod_)) return false;
    try {
      std::vector<eval::EvalTensor> inputs = randomInputs(ref_, kRefuteSeed, 0);
      // Integer inputs are most often indices (token ids): non-negative ones
      // are in range for any dim of at least 6 (randomInputs draws -5 ... 5).
      for (eval::EvalTensor &t : inputs)
        if (!isFloating(t.type.dtype))
          for (long double &x : t.values) x = std::fabs(x);
      traceBoth(inputs);
      // Note [Integer inputs of the cut search's evaluation]
      // A dim of fewer than 6 (BERT's 2 token types) makes such an index
      // raise, and nothing after it is evaluated: no candidate by evaluation
      // for the whole model, and no Z3 query either. When the evaluation left
      // an output of production unevaluated, it is made again with every
      // integer input in {0, 1}, in range of every dim of 2 or more. (All 0
      // is in range of every dim, but reads one row for every token and
      // position: every row of the attention then holds one value, and
      // tensors whose elements are all equal are no candidates.)
      if (!evaluatesOutputs(prod_, prodTrace_)) {
        for (eval::EvalTensor &t : inputs)
          if (!isFloating(t.type.dtype))
            for (long double &x : t.values) x = std::fmod(x, 2.0L);
        traceBoth(inputs);
      }
      std::unordered_set<const Node *> live = liveNodes(ref_);
      for (const auto &n : ref_.nodes())
        if (live.count(n.get()))
          for (const Value *v : n->outputs) refByType_[v->type.str()].push_back(v);
    } catch (const eval::EvalError &) {
      refTrace_.clear();
      prodTrace_.clear();
      return false;
    }
    return true;
  }

  // Note [Cut points], step 1, by structure: reference values of p's type
  // reached forward from p's frontier leaves (or a leaf itself) without
  // crossing a shared value, those reached from the most leaves first.
  std::vector<const Value *> structuralCandidates(const Value *p) {
    const ValueNumbering &vn = out_.numbering;
    auto leaves = supportOf(p, prodStructure_, vn, shared_);
    if (!leaves || leaves->empty()) return {};  // too large, or a constant
    std::unordered_map<const Value *, size_t> reachedFrom;  // how many of p's leaves reach it
    std::vector<const Value *> found;                       // in the order first reached
    auto unshared = [&](const Value *v) { return !shared_.count(vn.number(v)); };
    for (int leaf : *leaves)
      refStructure_.reach(byNumber_[leaf], GraphStructure::Direction::Users, unshared, kMaxNeighbourhood,
                          [&](const Value *v) {
                            if (v->type == p->type && reachedFrom[v]++ == 0) found.push_back(v);
                          });
    // Note [Cut candidates from structure], 2: first the values at p's
    // position in the post-dominator trees (both interior to an expression,
    // or both post-dominated by the outputs alone), then those reached from
    // the most leaves; a value both graphs compute is rarely what production
    // computes another way: those come after the others.
    // Each value's rank is computed once (in the comparator, the sort's lookups were a tenth of a
    // warm-cache 64-layer decide).
    const bool pInterior = prodStructure_.postDominator(p) != nullptr;
    using Rank = std::tuple<bool, size_t, bool>;
    std::vector<std::pair<Rank, const Value *>> ranked;
    ranked.reserve(found.size());
    for (const Value *v : found) {
      bool samePosition = (refStructure_.postDominator(v) != nullptr) == pInterior;
      ranked.emplace_back(Rank{samePosition, reachedFrom[v], unshared(v)}, v);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<const Value *> out;
    for (const auto &[rank, r] : ranked) {
      if (out.size() == kCandidatesPerValue) break;
      if (!evaluated_ || agreesWith(r, p)) out.push_back(r);
    }
    return out;
  }

  // Step 1 by evaluation: structural candidates first, then any reference
  // value of p's type that agrees with it, in the reference's order.
  std::vector<const Value *> candidates(const Value *p) {
    std::vector<const Value *> out = structuralCandidates(p);
    if (!evaluated_) return out;
    auto bucket = refByType_.find(p->type.str());
    if (bucket == refByType_.end()) return out;
    size_t agreeing = 0;
    for (const Value *r : bucket->second) {
      if (agreeing == kCandidatesPerValue) break;
      if (!agreesWith(r, p)) continue;
      ++agreeing;
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
    return out;
  }

  bool agreesWith(const Value *r, const Value *p) const {
    auto a = refTrace_.find(r), b = prodTrace_.find(p);
    return a != refTrace_.end() && b != prodTrace_.end() && !allElementsEqual(a->second) && agree(a->second, b->second);
  }

  // A value of the node just numbered: the recorded decision, proven again,
  // when its cone is unchanged (Note [Cut search record]), else the search's.
  void decide(const Value *p) {
    std::string key;
    if (record_ && record_->on()) {
      key = record_->decisionKey(p, prodStructure_.postDominator(p) != nullptr);
      if (std::optional<CutDecision> d = record_->replay(key)) {
        if (d->reference < 0) {
          ++out_.replayed;
          record_->record(key, *d, false);
          return;
        }
        // Only a candidate: merged when its region is proven (the memo, the proof cache).
        const Value *r = record_->referenceValue(d->reference);
        if (r && r->type == p->type) {
          ProofOutcome proof = normalFormProver_->prove(r, p, Widening::AroundProducts);
          if (proof.proven) {
            ++out_.replayed;
            merge(r, p, proof);
            record_->record(key, *d, false);
            return;
          }
        }
      }
    }
    const size_t before = out_.cuts.size();
    CutDecision d = tryCut(p);
    if (record_ && (d.reference >= 0 || out_.cuts.size() == before)) record_->record(key, d, true);
  }

  CutDecision tryCut(const Value *p) {
    CutDecision d;
    if (evaluated_ && (!prodTrace_.count(p) || allElementsEqual(prodTrace_.at(p)))) return d;
    for (const Value *r : candidates(p)) {
      ++out_.attempts;
      ProofOutcome proof = normalFormProver_->prove(r, p, Widening::AroundProducts);
      if (!proof.proven && evaluated_ && solverFailures_ < kMaxSolverFailures) {
        proof = solverProver_->prove(r, p, Widening::AroundProducts);
        solverFailures_ += !proof.proven;
      }
      spdlog::debug("cut search: production's %{} against the reference's %{}: {}", p->name, r->name,
                    proof.proven ? "proven, merged" : "not proven (" + proof.reason.substr(0, 300) + ")");
      if (!proof.proven) continue;
      merge(r, p, proof);
      d.reference = record_ ? record_->indexOf(r) : -1;
      return d;
    }
    return d;
  }

  // Step 4 of Note [Cut points]: p takes r's number.
  void merge(const Value *r, const Value *p, const ProofOutcome &proof) {
    // Every cut after a real (rounded) one may read it: real (rounded) too, with the roundings so far.
    weakest_ = weakerLevel(weakest_, proof.level);
    addRoundings(roundingsSoFar_, proof.roundings);
    out_.cuts.push_back(CutPoint{r, p, weakest_,
                                 weakest_ == Level::Rounded ? roundingsSoFar_ : std::vector<Rounding>{}});
    for (const sem::Assumption &a : proof.assumptions) ++out_.assumptions[a];
    out_.numbering.renumber(p, out_.numbering.number(r));
  }

  const Graph &ref_, &prod_;
  GraphStructure refStructure_{ref_}, prodStructure_{prod_};  // Note [Graph structure]
  const ProverLimits &limits_;
  const std::vector<bool> &serve_;
  CutPoints &out_;
  std::unordered_set<int> refNumbers_, shared_, matrixProducts_;
  std::unordered_set<const Value *> constants_;
  std::unordered_map<int, std::vector<const Value *>> byNumber_;    // reference values by number
  IndexDomains indexDomains_;
  RegionInputs regionInputs_;
  std::optional<Prover> normalFormProver_, solverProver_;
  bool evaluated_ = false;
  Trace refTrace_, prodTrace_;
  std::map<std::string, std::vector<const Value *>> refByType_;  // live reference values, when evaluated
  Level weakest_ = Level::None;           // of the cuts so far
  std::vector<Rounding> roundingsSoFar_;  // of the rounded cuts so far
  std::optional<CutRecord> record_;  // Note [Cut search record]
  size_t solverFailures_ = 0;        // Note [Solver failures in the cut search]
};

}  // namespace

ProverLimits cutSearchLimits(ProverLimits limits) {
  limits.maxRegionTerms = kMaxRegionTerms;
  limits.querySeconds = std::min(limits.querySeconds, kQuerySeconds);
  // The search only merges what is proven; it never reads a model.
  limits.needsModels = false;
  return limits;
}

CutPoints findCutPoints(const Graph &ref, const Graph &prod, const ProverLimits &limits,
                        const std::vector<bool> &serve, const ReferenceDomains *referenceDomains) {
  CutPoints out;
  const ReferenceDomains own = referenceDomains ? ReferenceDomains{} : referenceKernelDomains(ref);
  CutSearch search(ref, prod, limits, serve, referenceDomains ? *referenceDomains : own, out);
  search.run();
  return out;
}

}  // namespace torchtv
