#include "src/verify/cut_points.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "src/eval/concrete.h"
#include "src/match/divergence.h"
#include "src/verify/refute.h"

namespace torchtv {

namespace {

constexpr long double kRelativeTolerance = 1e-12L;
// A cut is worth it when its region is small (Note [Cut points]); a candidate
// whose region is not small is rarely provable and costly to fail.
// (500 terms sufficed for every cut of the benchmark's transformer.)
constexpr size_t kMaxRegionTerms = 5000;
constexpr double kQuerySeconds = 2;
// Reference values tried per production value: several can agree (a value and
// its copy through a no-op that normalization kept), one proof is enough.
constexpr size_t kCandidatesPerValue = 4;

using Trace = std::map<const Value *, eval::EvalTensor>;

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

// Values of g's live nodes (computed values, no inputs) that have a trace entry.
std::vector<const Value *> liveValues(const Graph &g, const Trace &trace) {
  std::unordered_set<const Node *> live = liveNodes(g);
  std::vector<const Value *> out;
  for (const auto &n : g.nodes()) {
    if (!live.count(n.get())) continue;
    for (const Value *v : n->outputs)
      if (trace.count(v) && !allElementsEqual(trace.at(v))) out.push_back(v);
  }
  return out;
}

// The numbering of both graphs with the cuts merged so far, and the numbers
// both compute (the frontier of every region).
struct Numbering {
  ValueNumbering vn;
  std::unordered_set<int> refNumbers, prodNumbers, shared;

  void rebuild(const Graph &ref, const Graph &prod, const std::unordered_map<const Value *, const Value *> &sameAs) {
    vn = ValueNumbering();
    vn.addGraph(ref);
    vn.addGraph(prod, &sameAs);
    refNumbers = numbersOf(ref, vn);
    prodNumbers = numbersOf(prod, vn);
    shared.clear();
    for (int n : refNumbers)
      if (prodNumbers.count(n)) shared.insert(n);
  }
  bool matched(const Value *v) const { return shared.count(vn.number(v)) != 0; }
};

}  // namespace

CutPoints findCutPoints(const Graph &ref, const Graph &prod, const ProverLimits &limits) {
  CutPoints out;
  if (!withinEvalBudget(ref, prod)) return out;
  Trace refTrace, prodTrace;
  try {
    std::vector<eval::EvalTensor> inputs = randomInputs(ref, kRefuteSeed, 0);
    // Integer inputs are most often indices (token ids): non-negative ones
    // are in range for any dim of at least 6 (randomInputs draws -5 ... 5).
    for (eval::EvalTensor &t : inputs)
      if (!isFloating(t.type.dtype))
        for (long double &x : t.values) x = std::fabs(x);
    refTrace = eval::evaluateWhatCan(ref, inputs, eval::Precision::Wide);
    prodTrace = eval::evaluateWhatCan(prod, inputs, eval::Precision::Wide);
  } catch (const eval::EvalError &) {
    return out;
  }

  Numbering numbering;
  numbering.rebuild(ref, prod, out.sameAs);
  std::map<std::string, std::vector<const Value *>> refByType;
  for (const Value *r : liveValues(ref, refTrace)) refByType[r->type.str()].push_back(r);

  RegionInputs regionInputs{ref, prod, numbering.vn, numbering.shared};
  ProverLimits cutLimits = limits;
  cutLimits.maxRegionTerms = kMaxRegionTerms;
  cutLimits.querySeconds = std::min(limits.querySeconds, kQuerySeconds);
  Prover prover(regionInputs, cutLimits);
  // Outputs are left to the prover proper, which says why they are equal
  // (the level and the reason of each output's verdict).
  std::unordered_set<const Value *> outputs(prod.outputs().begin(), prod.outputs().end());
  bool anyReal = false;
  for (const Value *p : liveValues(prod, prodTrace)) {
    if (std::chrono::steady_clock::now() >= limits.deadline) break;
    if (numbering.matched(p) || outputs.count(p)) continue;
    auto bucket = refByType.find(p->type.str());
    if (bucket == refByType.end()) continue;
    size_t tried = 0;
    for (const Value *r : bucket->second) {
      if (tried == kCandidatesPerValue) break;
      if (!agree(refTrace.at(r), prodTrace.at(p))) continue;
      ++tried;
      ++out.attempts;
      ProofOutcome proof = prover.prove(r, p, Widening::AroundProducts);
      if (!proof.proven) continue;
      anyReal = anyReal || proof.level == Level::Real;
      out.cuts.push_back(CutPoint{r, p, anyReal ? Level::Real : proof.level});
      out.assumptions.insert(proof.assumptions.begin(), proof.assumptions.end());
      out.sameAs[p] = r;
      numbering.rebuild(ref, prod, out.sameAs);
      break;
    }
  }
  out.distinctProofs = prover.distinctProofs();
  out.cacheHits = prover.cacheHits();
  out.solverQueries = prover.solverQueries();
  return out;
}

}  // namespace torchtv
