// The level ladder for one differing output: bitwise first, then real.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/smt/query.h"
#include "src/verify/region.h"
#include "src/verify/verdict.h"

namespace torchtv {
namespace cache {
class ProofCache;
}

// ToInputs: up to matrix products, then to the graph inputs (outputs).
// AroundProducts: up to matrix products, then through them to the values both
// graphs share (cut points, whose regions must stay small).
enum class Widening { ToInputs, AroundProducts };

struct ProverLimits {
  unsigned rlimit = smt::kDefaultRlimit;
  unsigned memoryMB = smt::kDefaultSolverMemoryMB;  // per query (Note [Solver memory cap])
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  double querySeconds = smt::kDefaultQuerySeconds;  // wall-clock cap of one query, below the deadline
  size_t maxRegionTerms = 0;  // 0: buildRegion's defaults
  // false: no Z3 query, proofs by term identity and the real normal form only
  // (the cut search tries candidates that mostly fail, and cannot afford a
  // query for each: Note [Cut points]).
  bool solver = true;
  // Results kept across runs (Note [Proof cache]); null: none.
  cache::ProofCache *cache = nullptr;
  // false: the caller never reads ProofOutcome::realModel (the cut search), so
  // a stored "not proven" whose Z3 model was dropped may answer it.
  bool needsModels = true;
};

// What a proof attempt concluded for one output.
struct ProofOutcome {
  bool proven = false;
  Level level = Level::None;
  std::string reason;  // why real and not bitwise, or why not proven
  sem::Assumptions assumptions;  // Note [Assumptions as data]
  // Level rounded: the sites the proof reads as exact (Note [Equivalence up to rounding]).
  std::vector<Rounding> roundings;
  // A real-level model over frontier tensors, when Z3 found the outputs differ.
  std::vector<smt::ModelRead> realModel;
  bool realModelOverInputs = false;
  // Proven only with the frontier widened: at which frontier, and that
  // region's key (Note [Memo of widened proofs]).
  Frontier provenAt = Frontier::Matched;
  size_t provenExpansions = 0;  // the bound of that widening (0: none)
  std::string widenedKey;  // Note [Region keys from the graph]
  // Not proven: what stood in the way, for the hint (Note [What would decide it]).
  std::vector<Blocker> blockers;
};

// Note [Memo of widened proofs]
// Regions are memoized by their key at the smallest frontier, where frontier
// values are free symbols. A proof that needed a wider frontier used what the
// frontier values are (a causal softmax is 0 under its mask), which another
// region with the same smallest key need not share: such a cached proof is
// reused only when the other region's widened key is equal too. The memo keeps
// a widened proof under a second key as well (the smallest key, the frontier
// and the widened region's key, as the proof cache does): a transformer's
// layers alternate two regions with one smallest key and two widened ones, and
// with one entry per smallest key each evicted the other, so both were proven
// again in every layer (2 of a layer's proofs, most of a 16-layer decide).

class Prover {
public:
  Prover(const RegionInputs &in, ProverLimits limits) : in_(in), limits_(limits) {}

  // `widening`: the frontiers tried at level real after the smallest one
  // (Note [Widening the frontier], Note [Cut points]).
  ProofOutcome prove(const Value *reference, const Value *production, Widening widening = Widening::ToInputs);

  // Whether the bitwise region of the outputs widened to the inputs reads only graph inputs (so
  // a bitwise proof at Frontier::Inputs rests on no cut point: Note [Widening at level bitwise]).
  bool bitwiseOverInputs(const Value *reference, const Value *production) const;

  size_t distinctProofs() const { return proofs_; }
  size_t cacheHits() const { return hits_; }
  size_t solverQueries() const { return queries_; }
  // Lookups in the persistent cache (Note [Proof cache]) that found a usable
  // outcome, and those that did not.
  size_t persistentHits() const { return persistentHits_; }
  size_t persistentMisses() const { return persistentMisses_; }

private:
  // `alignReads`: read the frontier tensors one side reads alone as their definitions (on the
  // smallest region); `expanded`: the proof did (Note [Frontier reads on one side]).
  bool proveElementByElement(sem::TermContext &ctx, const Region &r, const Value *a, const Value *b,
                             ProofOutcome &out, std::vector<std::string> &notes, bool alignReads, bool &expanded);
  ProofOutcome proveUncached(sem::TermContext &tc, const Region &real, const Value *a, const Value *b,
                             Widening widening);
  // Note [Widening at level bitwise]: replaces `out` by the bitwise proof, if one is found.
  bool provenBitwiseWidened(const Value *a, const Value *b, ProofOutcome &out);
  // nullopt: proven bitwise. `overAbstracted`: the IEEE model read a frontier value computed by the graphs.
  std::optional<std::string> bitwiseFailure(const Value *a, const Value *b, sem::Assumptions &assumed,
                                            bool &overAbstracted);
  bool sameWidenedRegion(const ProofOutcome &cached, const Value *a, const Value *b) const;
  std::string widenedKey(const ProofOutcome &cached, const Value *a, const Value *b) const;
  std::optional<ProofOutcome> memoized(const std::string &key, const Value *a, const Value *b);
  void remember(const std::string &key, const ProofOutcome &o);
  // Note [Index inputs in range]: adds to `assumed` the ranges an Equal answer needed.
  smt::QueryResult query(sem::TermContext &tc, const Region &r, smt::Arith arith, sem::Assumptions &assumed);
  smt::QueryResult queryOnce(sem::TermContext &tc, const Region &r, smt::Arith arith, bool inRange);

  const Value *slotValue(int slot) const;
  std::function<std::string(int)> slotNamer() const;
  // Names tc's reads by their values (TermContext::slotName).
  void nameSlots(sem::TermContext &tc) const { tc.slotName = slotNamer(); }
  const RegionInputs &in_;
  ProverLimits limits_;
  std::map<std::string, ProofOutcome> cache_;
  mutable std::unordered_map<int, std::string> slotNames_;  // slotNamer's, as they are asked for
  size_t proofs_ = 0, hits_ = 0, queries_ = 0, persistentHits_ = 0, persistentMisses_ = 0;
  std::vector<Blocker> blockers_;  // the current proof attempt's (Note [What would decide it])
  bool budgetCut_ = false;  // the deadline shortened the current proof attempt
};

}  // namespace torchtv
