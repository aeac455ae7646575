#include "src/verify/prover.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>

#include <spdlog/spdlog.h>

#include "src/sem/element_terms.h"
#include "src/sem/index_ranges.h"
#include "src/sem/normal_form.h"
#include "src/verify/verdict.h"
#include "src/verify/persistent_proofs.h"
#include "src/verify/rounded_constants.h"
#include "src/verify/roundings.h"

namespace torchtv {

namespace {

// Accumulations a bounded widening expands along a path (Note [Bounded
// widening]): a residual link and the one before it, enough for every cut of
// the benchmark's transformer.
constexpr size_t kWideningBound = 2;

// `name` spells a frontier slot (a value number) the way the graphs do.
std::string describeModel(const smt::QueryResult &r, const std::function<std::string(int)> &name) {
  auto fmt = [](double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return std::string(buf);
  };
  std::string s = "reference " + fmt(r.lhs) + " vs production " + fmt(r.rhs);
  size_t shown = 0;
  for (const smt::ModelRead &m : r.reads) {
    if (shown++ == 3) break;
    s += (shown == 1 ? " when " : ", ") + name(m.slot) + "[";
    for (size_t i = 0; i < m.index.size(); ++i) s += (i ? "," : "") + std::to_string(m.index[i]);
    s += "] = " + fmt(m.value);
  }
  return s;
}

// Whether `a` or `b` holds a reduction longer than Z3 unrolls at level real
// (smt::kUnrollLimit): there it is an uninterpreted function, free to take a
// value that no input gives, so a model of the query is no counterexample.
bool hasUninterpretedReduction(sem::TermPtr a, sem::TermPtr b) {
  return sem::anySubterm(a, b, [](sem::TermPtr t) {
    return sem::isReduction(t->op) && !(t->extent.isConcrete() && t->extent.size() > 0 && t->extent.size() <= smt::kUnrollLimit);
  });
}

double secondsLeft(const ProverLimits &l) {
  if (l.deadline == std::chrono::steady_clock::time_point::max()) return 120;
  return std::chrono::duration<double>(l.deadline - std::chrono::steady_clock::now()).count();
}

const char *answerText(smt::Answer a) {
  switch (a) {
  case smt::Answer::Equal: return "equal";
  case smt::Answer::Differ: return "a model";
  case smt::Answer::Unknown: return "unknown";
  case smt::Answer::Crash: return "crashed";
  }
  return "?";
}

}  // namespace

// The graph value a frontier slot (a value number) reads, production's first; null when none.
const Value *Prover::slotValue(int slot) const {
  for (const Graph *g : {&in_.production, &in_.reference}) {
    for (const Value *v : g->inputs())
      if (in_.vn.has(v) && in_.vn.number(v) == slot) return v;
    for (const auto &node : g->nodes())
      for (const Value *v : node->outputs)
        if (in_.vn.has(v) && in_.vn.number(v) == slot) return v;
  }
  return nullptr;
}

// "%name" of a frontier slot's value; "value#N" when no graph value has the number.
std::function<std::string(int)> Prover::slotNamer() const {
  return [this](int slot) {
    auto it = slotNames_.find(slot);
    if (it == slotNames_.end()) {
      const Value *v = slotValue(slot);
      it = slotNames_.emplace(slot, v ? "%" + v->name : "value#" + std::to_string(slot)).first;
    }
    return it->second;
  };
}

// Note [Index inputs in range]: the query as it is; when Z3 finds the outputs
// differ at an index out of range, once more with the indices in range. (A
// query that ran out of resources is not asked again: that doubled the time of
// outputs the ranges do not decide.) A search without solver queries (the cut
// search's normal-form pass) has no model to look at: there the terms with the
// ranges applied are compared as terms (queryOnce asks no query when they are
// one term), so that a one-hot and an eq/arange mask, one term in range (Note
// [Positions as values in terms] in src/sem/term.h), are proven bitwise there
// rather than over the reals by the normal form.
smt::QueryResult Prover::query(sem::TermContext &tc, const Region &r, smt::Arith arith,
                               sem::Assumptions &assumed) {
  smt::QueryResult q = queryOnce(tc, r, arith, false);
  if (r.indexDomains.empty()) return q;
  bool noSolver = !limits_.solver && q.answer == smt::Answer::Unknown;
  if (q.answer != smt::Answer::Differ && !noSolver) return q;
  bool inRange = !noSolver && std::all_of(q.reads.begin(), q.reads.end(), [&](const smt::ModelRead &m) {
    auto d = r.indexDomains.find(m.slot);
    return d == r.indexDomains.end() ||
           (m.value == std::trunc(m.value) && d->second.range.contains(static_cast<int64_t>(m.value)));
  });
  if (inRange) return q;
  smt::QueryResult inDomain = queryOnce(tc, r, arith, true);
  if (inDomain.answer == smt::Answer::Equal)
    for (const auto &[slot, d] : r.indexDomains) assumed.insert(d);
  if (inDomain.answer == smt::Answer::Equal || inDomain.answer == smt::Answer::Differ) return inDomain;
  return q;
}

smt::QueryResult Prover::queryOnce(sem::TermContext &tc, const Region &r, smt::Arith arith, bool inRange) {
  smt::QueryOptions o;
  sem::TermPtr reference = r.reference, production = r.production;
  if (inRange) {  // Note [Terms with indices in range] in src/sem/index_ranges.h
    for (const auto &[slot, d] : r.indexDomains) o.indexBounds[slot] = d.range;
    bool reals = arith == smt::Arith::Real;
    reference = sem::assumeIndexRanges(tc, reference, o.indexBounds, reals);
    production = sem::assumeIndexRanges(tc, production, o.indexBounds, reals);
    if (reference == production) return {smt::Answer::Equal, "", {}, 0, 0};
  }
  o.rlimit = limits_.rlimit;
  o.memoryMB = limits_.memoryMB;
  o.deadlineSeconds = std::min(limits_.querySeconds, secondsLeft(limits_));
  if (o.deadlineSeconds <= 0) {
    budgetCut_ = true;
    addBlocker(blockers_, {Obstacle::CheckTimeLimit, ""});
    return {smt::Answer::Unknown, reasons::kTimeLimit, {}, 0, 0};
  }
  if (!limits_.solver) return {smt::Answer::Unknown, "no solver query in this search", {}, 0, 0};
  // A query the deadline shortened, or one that crashed, ran under no known budget.
  if (o.deadlineSeconds < limits_.querySeconds) budgetCut_ = true;
  // Note [Sums compared by their summands] in src/sem/index_ranges.h: with indices in range, a sum's
  // rows select by data; their combinations are what Z3 cannot enumerate.
  if (inRange && arith == smt::Arith::Real)
    if (auto summands = sem::summandsToCompare(tc, reference, production)) {
      ++queries_;
      smt::QueryResult q = smt::proveEqual(tc, summands->first, summands->second, arith, o);
      if (q.answer == smt::Answer::Equal) return q;
    }
  ++queries_;
  auto start = std::chrono::steady_clock::now();
  smt::QueryResult q = smt::proveEqual(tc, reference, production, arith, o);
  if (q.answer == smt::Answer::Crash) budgetCut_ = true;
  // Note [What would decide it]: a query that the check's deadline shortened ran out of the check's time.
  if (q.limit == smt::Limit::Time && o.deadlineSeconds < limits_.querySeconds)
    addBlocker(blockers_, {Obstacle::CheckTimeLimit, ""});
  else if (q.answer == smt::Answer::Unknown || q.answer == smt::Answer::Crash) addBlocker(blockers_, q.limit);
  spdlog::debug("Z3 query {} ({}{}): {} in {:.2f} s", queries_, arith == smt::Arith::Real ? "reals" : "IEEE",
                inRange ? ", indices in range" : "", answerText(q.answer),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return q;
}

// nullopt: proven bitwise; else why not.
std::optional<std::string> Prover::bitwiseFailure(const Value *a, const Value *b, sem::Assumptions &assumed,
                                                  bool &overAbstracted) {
  overAbstracted = false;
  sem::TermContext tc;
  nameSlots(tc);
  Region r;
  try {
    r = buildRegion(tc, in_, a, b, Frontier::Matched, RegionMode::Bitwise, limits_.maxRegionTerms);
  } catch (const sem::Unsupported &e) {
    addBlocker(blockers_, e);
    return std::string("bitwise: ") + e.what();
  }
  if (r.reference == r.production) return std::nullopt;
  smt::QueryResult q = query(tc, r, smt::Arith::Ieee, assumed);
  switch (q.answer) {
  case smt::Answer::Equal: return std::nullopt;
  case smt::Answer::Differ: {
    // If a reduction is involved (an opaque value#), the difference may be the
    // order of accumulation (Note [Bitwise regions]).
    overAbstracted = std::any_of(q.reads.begin(), q.reads.end(), [&](const smt::ModelRead &m) {
      const Value *v = slotValue(m.slot);
      return !v || v->producer;
    });
    return "not bitwise: IEEE values can differ (" + describeModel(q, slotNamer()) + ")";
  }
  case smt::Answer::Unknown: return "bitwise not decided: " + q.detail;
  case smt::Answer::Crash: return "bitwise not decided: " + q.detail;
  }
  return std::string("bitwise not decided");
}

// Note [Memo of widened proofs]
bool Prover::sameWidenedRegion(const ProofOutcome &cached, const Value *a, const Value *b) const {
  if (!cached.proven || cached.provenAt == Frontier::Matched) return true;
  return widenedKey(cached, a, b) == cached.widenedKey;
}

// The key of this region widened as `cached` was (Note [Region keys from the graph]).
std::string Prover::widenedKey(const ProofOutcome &cached, const Value *a, const Value *b) const {
  return regionGraphKey(in_, a, b, cached.provenAt, RegionMode::Real, cached.provenExpansions);
}

// This run's outcome for `key`, if it answers the region of a and b.
std::optional<ProofOutcome> Prover::memoized(const std::string &key, const Value *a, const Value *b) {
  auto it = cache_.find(key);
  if (it == cache_.end()) return std::nullopt;
  // Note [Memo of widened proofs]: the proof under `key` is another region's, widened otherwise
  // (the other of two layers that alternate); this region's own is under the second key, if any.
  if (!sameWidenedRegion(it->second, a, b)) it = cache_.find(widenedPersistentKey(key, it->second, widenedKey(it->second, a, b)));
  if (it == cache_.end() || !sameWidenedRegion(it->second, a, b)) return std::nullopt;
  ++hits_;
  return it->second;
}

// Keeps `o` under `key`, and a proof at a widened frontier under its second key too (the first
// holds the last one).
void Prover::remember(const std::string &key, const ProofOutcome &o) {
  for (const std::string &k : keysToKeep(key, o)) cache_.insert_or_assign(k, o);
}

ProofOutcome Prover::prove(const Value *a, const Value *b, Widening widening) {
  // The outcome of a narrower search is no answer for a wider one. Looked up
  // by the graph first, which costs no term (Note [Region keys from the graph]).
  std::string graphKey = regionGraphKey(in_, a, b, Frontier::Matched, RegionMode::Real);
  std::string memoKey = std::to_string(static_cast<int>(widening)) + graphKey;
  if (auto hit = memoized(memoKey, a, b)) return *hit;
  // Note [Proof cache]
  std::string persistent = limits_.cache ? persistentKey(graphKey, widening, limits_) : std::string();
  if (limits_.cache) {
    std::optional<ProofOutcome> stored = lookupPersistent(persistent, limits_);
    // Another region with this smallest key (another layer) was proven at a
    // widened frontier that differs here: this region's own widened proof is
    // kept under a second key that holds the widened region's key too.
    if (stored && !sameWidenedRegion(*stored, a, b))
      stored = lookupPersistent(widenedPersistentKey(persistent, *stored, widenedKey(*stored, a, b)), limits_);
    if (stored && sameWidenedRegion(*stored, a, b)) {
      ++persistentHits_;
      stored->reason += std::string("; ") + reasons::kFromProofCache;
      remember(memoKey, *stored);
      return *stored;
    }
    ++persistentMisses_;
  }
  sem::TermContext tc;
  nameSlots(tc);
  Region real;
  try {
    real = buildRegion(tc, in_, a, b, Frontier::Matched, RegionMode::Real, limits_.maxRegionTerms);
  } catch (const sem::Unsupported &e) {
    ProofOutcome o;
    o.reason = std::string(reasons::kNotProven) + ": " + e.what();
    addBlocker(o.blockers, e);
    cache_.insert_or_assign(std::move(memoKey), o);
    return o;
  }
  // Regions of different graphs can have the same terms (a view chain and the
  // view it folds into): this run's memo also answers by the terms.
  std::string termKey = std::to_string(static_cast<int>(widening)) + real.key;
  std::optional<ProofOutcome> o = memoized(termKey, a, b);
  if (!o) {
    ++proofs_;
    budgetCut_ = false;
    o = proveUncached(tc, real, a, b, widening);
    remember(termKey, *o);
    if (limits_.cache)
      for (const std::string &k : keysToKeep(persistent, *o)) storePersistent(k, *o, limits_, budgetCut_);
  }
  remember(memoKey, *o);
  return *o;
}

// Note [Widening at level bitwise]
// The bitwise query runs on the smallest region, whose frontier values are
// free: a shared |x| read by `|x| != inf` loses that it is |x|, which
// isfinite(x) on the other side needs; a cut point's value n = neg(x), merged
// with 0 - x (equal over the reals only), loses that it is never -0, which
// `0 - x` against `n + 0` needs. The bitwise query is asked once more with the
// frontier widened to the inputs, bounded (Note [Bounded widening]), where the
// smallest region failed for want of what a frontier value is: where no real
// proof exists either, or only one over the extended reals (an infinity
// constant, Note [Extended reals at level real]), and where the
// real proof itself needed a wider frontier than the smallest and the bitwise
// model there read such a value (not a time-out, not a model over the graph
// inputs alone). So it costs only outputs that would otherwise stay unknown or
// that widening proved already. A widened region whose graph key is the
// smallest one's was asked about already.
// A proof there that reads only graph inputs rests on no value number, and so on
// no cut point (bitwiseOverInputs; levelStage in check.cpp).
bool Prover::provenBitwiseWidened(const Value *a, const Value *b, ProofOutcome &out) {
  if (!limits_.solver || secondsLeft(limits_) <= 0 ||
      regionGraphKey(in_, a, b, Frontier::Inputs, RegionMode::Bitwise, kWideningBound) ==
          regionGraphKey(in_, a, b, Frontier::Matched, RegionMode::Bitwise))
    return false;
  sem::TermContext wide;
  nameSlots(wide);
  try {
    Region r = buildRegion(wide, in_, a, b, Frontier::Inputs, RegionMode::Bitwise, limits_.maxRegionTerms,
                           kWideningBound);
    sem::Assumptions assumed;
    if (r.reference != r.production && query(wide, r, smt::Arith::Ieee, assumed).answer != smt::Answer::Equal)
      return false;
    out = ProofOutcome{};
    out.assumptions = assumed;
    out.proven = true;
    out.level = Level::Bitwise;
    out.reason = reasons::kProvenBitwise;
    out.provenAt = Frontier::Inputs;
    out.provenExpansions = kWideningBound;
    out.widenedKey = regionGraphKey(in_, a, b, Frontier::Inputs, RegionMode::Real, kWideningBound);
    return true;
  } catch (const sem::Unsupported &) {
    return false;  // the widened region has no bitwise terms
  }
}

// Whether the bitwise region of a and b widened to the inputs reads nothing but graph inputs: a
// proof there holds for the graphs as they are, whatever values the numbering merged.
bool Prover::bitwiseOverInputs(const Value *a, const Value *b) const {
  sem::TermContext tc;
  nameSlots(tc);
  Region r;
  try {
    r = buildRegion(tc, in_, a, b, Frontier::Inputs, RegionMode::Bitwise, limits_.maxRegionTerms, kWideningBound);
  } catch (const sem::Unsupported &) {
    return false;
  }
  std::set<int> inputs;
  for (const Graph *g : {&in_.reference, &in_.production})
    for (const Value *v : g->inputs())
      if (in_.vn.has(v)) inputs.insert(in_.vn.number(v));
  return !sem::anySubterm(r.reference, r.production,
                          [&](sem::TermPtr t) { return t->op == sem::TOp::Read && !inputs.count(t->slot); });
}

// Note [Normal forms element by element], on the region's terms, then (when the region reads
// index tensors) on the terms with their indices in range, as the symbolic normal form does (Note
// [Normal form with indices in range]). Fills out's level, assumptions, roundings and reason.
bool Prover::proveElementByElement(sem::TermContext &ctx, const Region &r, const Value *a, const Value *b,
                                   ProofOutcome &out, std::vector<std::string> &notes, bool alignReads,
                                   bool &expanded) {
  sem::ElementLimits el;
  el.deadline = limits_.deadline;
  DType constantsIn = constantsDType(r.reference, r.production);
  std::vector<RoundedConstantPair> roundedPairs;
  auto withinRounding = [&](const std::string &keyA, const std::string &keyB) {
    auto pairs = roundedConstantsOnly(keyA, keyB, roundedConstantsTolerance(constantsIn));
    if (!pairs) return false;
    for (const RoundedConstantPair &p : *pairs)
      if (std::none_of(roundedPairs.begin(), roundedPairs.end(), [&](const RoundedConstantPair &q) {
            return q.reference == p.reference && q.production == p.production;
          }))
        roundedPairs.push_back(p);
    return true;
  };
  sem::IndexRanges bounds;
  for (const auto &[slot, d] : r.indexDomains) bounds[slot] = d.range;
  sem::ExpandRead expand = [&](sem::TermContext &into, int slot, const std::vector<sem::IndexExpr> &index,
                               bool indexMapsOnly) {
    return frontierDefinition(into, in_, Frontier::Matched, slot, index, indexMapsOnly);
  };
  std::string failure;
  for (size_t i = 0; i < 2; ++i) {
    if (i == 1 && bounds.empty()) break;
    roundedPairs.clear();
    try {
      sem::ElementComparison cmp =
          sem::compareElementByElement(ctx, r.reference, r.production, el, withinRounding, i == 1 ? &bounds : nullptr,
                                       alignReads ? expand : nullptr);
      if (!cmp.equal) {  // Z3 next, for a model
        spdlog::debug("element by element{}: the forms differ at {}:\n  {}\n  {}", i ? " (indices in range)" : "",
                      cmp.differingElement, cmp.formA.substr(0, 3000), cmp.formB.substr(0, 3000));
        continue;
      }
      out.proven = true;
      out.level = Level::Real;
      out.assumptions = cmp.assumptions;
      expanded = cmp.expanded;
      if (i == 1)
        for (const auto &[slot, d] : r.indexDomains) out.assumptions.insert(d);
      out.reason = reasons::kRealElementByElement;
      if (!roundedPairs.empty()) {
        out.level = Level::Rounded;
        out.roundings = roundingSites(roundedPairs, constantsIn, a, b);
        out.reason += "; " + describeRoundings(out.roundings);
      }
      return true;
    } catch (const sem::Unsupported &e) {
      failure = e.what();
      addBlocker(blockers_, e);
    }
  }
  if (!failure.empty()) notes.push_back(std::string("normal forms element by element: ") + failure);
  return false;
}

ProofOutcome Prover::proveUncached(sem::TermContext &tc, const Region &real, const Value *a, const Value *b,
                                   Widening widening) {
  ProofOutcome out;
  blockers_.clear();
  bool bitwiseOverAbstracted = false;  // the bitwise model read a frontier value that is no graph input
  auto bitwise = bitwiseFailure(a, b, out.assumptions, bitwiseOverAbstracted);
  if (!bitwise) {
    out.proven = true;
    out.level = Level::Bitwise;
    out.reason = reasons::kProvenBitwise;
    return out;
  }
  std::vector<std::string> notes;
  // Level real: the normal form first (any dim size), then Z3 over the reals,
  // on the smallest region, then up to matrix products, then on the whole cone
  // (Note [Widening the frontier]).
  // Each widening is tried bounded first (Note [Bounded widening]); the cut
  // search, which fails most of its candidates, never goes unbounded.
  std::string lastKey = real.key;
  // The last rung, the smallest region once more, only element by element with the frontier
  // tensors one side reads alone read as their definitions (Note [Frontier reads on one side]):
  // last, as its proof is memoized by the whole cone (no layer's proof answers another's).
  struct Rung {
    Frontier frontier;
    size_t expansions;
    bool alignReads = false;
  };
  std::vector<Rung> ladder = {{Frontier::Matched, 0},
                              {Frontier::ThroughIndices, 0},  // Note [Frontier through index values]
                              {Frontier::MatmulOutputs, kWideningBound},
                              {Frontier::MatmulOutputs, 0},
                              {Frontier::Inputs, 0},
                              {Frontier::Matched, 0, true}};
  if (widening == Widening::AroundProducts)
    ladder = {{Frontier::Matched, 0},
              {Frontier::MatmulOutputs, kWideningBound},
              {Frontier::ThroughProducts, kWideningBound},
              {Frontier::ThroughViews, kWideningBound},
              {Frontier::Matched, 0, true}};
  for (auto [f, expansions, alignReads] : ladder) {
    if (alignReads) {
      if (secondsLeft(limits_) <= 0) break;
      bool expanded = false;
      if (proveElementByElement(tc, real, a, b, out, notes, true, expanded)) {
        out.reason += "; " + *bitwise;
        // a proof that read frontier tensors as their definitions holds for this cone, which the
        // key over the inputs spells out
        out.provenAt = expanded ? Frontier::Inputs : f;
        out.provenExpansions = 0;
        if (expanded) out.widenedKey = regionGraphKey(in_, a, b, Frontier::Inputs, RegionMode::Real, 0);
        if (expanded && bitwiseOverAbstracted) provenBitwiseWidened(a, b, out);
        return out;
      }
      continue;
    }
    sem::TermContext local;
    nameSlots(local);
    sem::TermContext &ctx = f == Frontier::Matched ? tc : local;
    Region r = real;
    if (f != Frontier::Matched) {
      try {
        r = buildRegion(ctx, in_, a, b, f, RegionMode::Real, limits_.maxRegionTerms, expansions);
      } catch (const sem::Unsupported &e) {
        notes.push_back(e.what());
        addBlocker(blockers_, e);
        continue;
      }
      if (r.key == lastKey) continue;
      lastKey = r.key;
    }
    if (secondsLeft(limits_) <= 0) {
      budgetCut_ = true;
      notes.push_back(reasons::kTimeLimit);
      addBlocker(blockers_, {Obstacle::CheckTimeLimit, ""});
      break;
    }
    try {
      sem::NormalForm nf(ctx);
      std::string keyRef = nf.key(r.reference), keyProd = nf.key(r.production);
      // Note [Normal form with indices in range]
      // A decomposition reads at a "safe" index where(t != ignore, t, 0) and
      // counts the targets kept as an integer sum, where the traced op reads at
      // t and counts in floats: equal for targets in range, but the query
      // without the ranges is the one Z3 must finish first (Note [Index inputs
      // in range]), and with more than 16 rows, and a select over 100 classes
      // in each, it runs out of resources (BERT's cross-entropy). The terms
      // with the ranges applied (an identity for in-range indices, Note [Terms
      // with indices in range]) are compared by their normal forms first, as
      // cheap as the plain comparison; equal, the proof assumes the ranges,
      // as a Z3 proof with them does, and names them.
      sem::Assumptions rangeAssumed;
      if (keyRef != keyProd && !r.indexDomains.empty()) {
        sem::IndexRanges bounds;
        for (const auto &[slot, d] : r.indexDomains) bounds[slot] = d.range;
        sem::NormalForm inRange(ctx, &bounds);  // its own assumptions: only those of the ranged terms
        std::string ranged = inRange.key(sem::assumeIndexRanges(ctx, r.reference, bounds, true));
        if (ranged == inRange.key(sem::assumeIndexRanges(ctx, r.production, bounds, true))) {
          keyRef = keyProd = ranged;
          rangeAssumed = inRange.assumptions();
          for (const auto &[slot, d] : r.indexDomains) rangeAssumed.insert(d);
        }
      }
      // Note [Equivalence up to rounding]: constants within one rounding of the dtype they
      // compute in are proven equal at level rounded, each pair named; further apart they
      // differ, and the normal path below decides (a model, replayed, or unknown).
      std::optional<std::vector<RoundedConstantPair>> rounded;
      if (keyRef != keyProd)
        rounded = roundedConstantsOnly(keyRef, keyProd,
                                       roundedConstantsTolerance(constantsDType(r.reference, r.production)));
      if (keyRef == keyProd || rounded) {
        out.proven = true;
        out.level = Level::Real;
        out.assumptions = rangeAssumed.empty() ? nf.assumptions() : rangeAssumed;
        out.reason = std::string(reasons::kRealNormalForm) + "; " + *bitwise;
        if (rounded) {
          out.level = Level::Rounded;
          out.roundings = roundingSites(*rounded, constantsDType(r.reference, r.production), a, b);
          out.reason += "; " + describeRoundings(out.roundings);
        }
        out.provenAt = f;
        out.provenExpansions = expansions;
        if (f != Frontier::Matched) out.widenedKey = regionGraphKey(in_, a, b, f, RegionMode::Real, expansions);
        // Note [Widening at level bitwise]
        if (f != Frontier::Matched && bitwiseOverAbstracted) provenBitwiseWidened(a, b, out);
        return out;
      }
    } catch (const sem::Unsupported &e) {
      notes.push_back(std::string("normal form: ") + e.what());
      addBlocker(blockers_, e);
    }
    // Note [Normal forms element by element]: sums of different shapes, compared at each element.
    bool expanded = false;
    if (proveElementByElement(ctx, r, a, b, out, notes, false, expanded)) {
      out.reason += "; " + *bitwise;
      out.provenAt = f;
      out.provenExpansions = expansions;
      if (f != Frontier::Matched) out.widenedKey = regionGraphKey(in_, a, b, f, RegionMode::Real, expansions);
      if (f != Frontier::Matched && bitwiseOverAbstracted) provenBitwiseWidened(a, b, out);
      return out;
    }
    sem::Assumptions assumed;
    smt::QueryResult q = query(ctx, r, smt::Arith::Real, assumed);
    if (q.answer == smt::Answer::Equal) {
      out.assumptions = assumed;
      out.proven = true;
      out.level = Level::Real;
      out.reason = std::string(reasons::kRealZ3) + "; " + *bitwise;
      out.provenAt = f;
      out.provenExpansions = expansions;
      if (f != Frontier::Matched) out.widenedKey = regionGraphKey(in_, a, b, f, RegionMode::Real, expansions);
      // Note [Widening at level bitwise]: an infinity constant's real proof (extended reals) is
      // the case where none existed before.
      if ((f != Frontier::Matched || smt::needsExtendedReals(r.reference, r.production)) && bitwiseOverAbstracted)
        provenBitwiseWidened(a, b, out);
      return out;
    }
    if (q.answer == smt::Answer::Differ) {
      // Over a frontier the values are abstracted (any real), so a model is no counterexample: it may
      // be unreachable from the graphs' inputs; the reason names the abstracted values and says so.
      // The abstracted values the model reads: a graph input read on a frontier is no abstraction.
      std::vector<std::string> names;
      for (const smt::ModelRead &m : q.reads) {
        const Value *v = slotValue(m.slot);
        if (v && !v->producer) continue;
        std::string n = slotNamer()(m.slot);
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      }
      // Sums longer than Z3 unrolls are abstracted too (uninterpreted): the reason says so as well.
      bool overInputs = f == Frontier::Inputs || names.empty();
      std::string which = reasons::kRealDifferOnInputs, tail;
      if (!overInputs) {
        which = reasons::kRealDifferOnAbstracted;
        for (size_t i = 0; i < names.size() && i < 4; ++i) which += (i ? ", " : "") + names[i];
        if (names.size() > 4) which += ", ...";
        tail = reasons::kMayBeUnreachable;
      }
      if (hasUninterpretedReduction(r.reference, r.production)) tail = reasons::kLongSumsUninterpreted;
      notes.push_back(which + tail + " (" + describeModel(q, slotNamer()) + ")");
      if (f == Frontier::Inputs || out.realModel.empty()) {
        out.realModel = q.reads;
        out.realModelOverInputs = f == Frontier::Inputs;
      }
    } else {
      notes.push_back("Z3: " + q.detail);
    }
  }
  // Note [Widening at level bitwise]
  if (provenBitwiseWidened(a, b, out)) return out;
  out.reason = reasons::kNotProven;
  for (const std::string &n : notes) out.reason += "; " + n;
  out.blockers = blockers_;
  return out;
}

}  // namespace torchtv
