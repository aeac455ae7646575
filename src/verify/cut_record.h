// The cut search's decisions kept across runs: a production value whose cone
// is unchanged is not searched again (Note [Cut search record]).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "src/match/value_numbering.h"
#include "src/verify/prover.h"

namespace torchtv {

// Note [Cut search record]
// With a warm proof cache, a model whose production changed in one layer was
// answered region by region from the cache, yet the cut search still ran for
// every value of every layer (its candidates found by graph walks, each
// candidate's region key written and looked up): about 1 s of CPU above the
// floor at 64 layers, where the changed layer's own proofs are a fraction of
// that. So the search's decisions are stored too, one entry per reference
// graph, and replayed for every production value whose cone is unchanged,
// wherever the change is.
// What the search's decision for production value p reads (Note [Cut points]):
// p's cone back to the values shared so far (its leaves: their numbers, which
// are the reference's, and the nodes between), p's post-dominator position
// (the ranking), the reference graph, which reference values near the leaves
// are shared so far, and the outcomes of its candidates' proofs. So:
// - the entry's key holds the cut search's key of Note [Proof cache]
//   (semantics version, normal form only, term budget), a format version, and
//   the normalized reference graph printed whole: the reference's value
//   numbers, which the leaves are written in, are a function of it;
// - each production value without a shared number gets a digest of its cone,
//   built as production is numbered: SHA-256 of its node's operation,
//   attributes, output index and type, with each operand written as its number
//   when shared and as its own digest otherwise (a Merkle hash of the cone up
//   to the shared values, commutative operands sorted). A decision is stored
//   under p's digest and its post-dominator position. A change before p in
//   production's order but outside its cone (the layers before, and the
//   forward of a layer whose backward p is in) leaves the key unchanged, once
//   the changed values are cut back to the reference's numbers.
// The key does not hold which reference values near the leaves are shared (a
// change elsewhere can make a different candidate rank first), so a replayed
// decision is only a candidate, never a proof: "cut to reference value r" is
// proven again by the search's prover (its memo and the proof cache, keyed by
// the canonical region: Note [Proof cache]) and merged with that proof's level
// and assumptions; when that proof fails, p is searched as if nothing were
// stored. "No cut" only skips p's search: it can lose a cut (a verdict
// `unknown` instead of `equivalent`), never make one. Used only when the
// search evaluates nothing: with an evaluation the candidates come from Z3
// too, whose wall-clock limit makes a failed candidate no function of its key.
// Not stored when the run's deadline passed during the search (a decision the
// deadline cut short is no decision). A record of an older format is a miss
// (the format version); a damaged entry is a miss (src/cache). Decisions
// stored by earlier runs are kept (a CI cache serves branches that alternate),
// this run's replacing those with the same key, until pruned (Note [Cut record
// pruning]).
//
// Note [Cut record pruning]
// Kept forever, a record grows by every changed value of every run: a CI cache
// that sees a hundred versions of a model holds a hundred versions of its
// changed layers' decisions, read whole by every check of that reference and
// written whole by every run that searched. So the record counts the runs that
// stored it, each decision carries the count of the last storing run that used
// it (searched or replayed), and a run that stores the record drops the
// decisions that none of the last kKeptRuns storing runs used. Its size is
// bounded by what kKeptRuns runs decide. A run that only replays stores nothing
// and so ages nothing (an unchanged re-run is answered by the result cache
// anyway). A dropped decision costs a search and is never a wrong answer: its
// value is searched as if there were no record (which may find no cut where the
// replayed one would have been proven: an `unknown`, never an `equivalent`).
// `torchtv cache stats` counts the records and their bytes (the store keeps
// them under a prefix of their own), and `torchtv cache clear` empties them with
// the rest.
struct CutDecision {
  long reference = -1;  // index into the reference's values (inputs, then node outputs); -1: no cut
};

class CutRecord {
public:
  // Off (every call a no-op) without a usable cache in `limits`.
  CutRecord(const Graph &ref, const Graph &prod, const ProverLimits &limits);
  bool on() const { return !key_.empty(); }
  // The entry's key in the proof cache (tests forge entries under it).
  const std::string &key() const { return key_; }

  // One production node, just numbered (before any of its outputs is decided):
  // the cone digests of its outputs that have no reference number.
  void step(const Node &node, const ValueNumbering &vn, const std::unordered_set<int> &referenceNumbers);
  // The key of a decision for `p` (an output of the last node stepped, not shared).
  std::string decisionKey(const Value *p, bool interior) const;
  std::optional<CutDecision> replay(const std::string &key) const;
  // `searched`: decided by the search in this run, not replayed.
  void record(const std::string &key, const CutDecision &d, bool searched);
  const Value *referenceValue(long i) const;
  long indexOf(const Value *referenceValue) const;
  // Stores the decisions when some were searched (not all replayed), those of
  // the last kKeptRuns runs (Note [Cut record pruning]).
  void save();
  static constexpr long kKeptRuns = 16;

private:
  ProverLimits limits_;
  std::string key_;
  std::vector<const Value *> refValues_;
  std::unordered_map<const Value *, long> refIndex_;
  std::unordered_map<const Value *, std::string> cone_;  // digests of production's unshared values
  struct Stored {
    CutDecision decision;
    long lastRun = 0;  // the count of the last run that stored it (Note [Cut record pruning])
  };
  std::unordered_map<std::string, Stored> stored_;
  std::unordered_map<std::string, CutDecision> made_;
  long runs_ = 0;  // runs that stored the record
  size_t searched_ = 0;
};

}  // namespace torchtv
