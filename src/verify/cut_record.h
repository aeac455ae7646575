// The cut search's decisions kept across runs: an unchanged prefix of
// production is not searched again (Note [Cut search record]).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph.h"
#include "src/verify/prover.h"

namespace torchtv {

// Note [Cut search record]
// With a warm proof cache, a model whose production changed in one layer was
// answered region by region from the cache, yet the cut search still ran for
// every value of every layer (its candidates found by graph walks, each
// candidate's region key written and looked up): about 1 s of CPU above the
// floor at 64 layers, where the changed layer's own proofs are a fraction of
// that. So the search's decisions are stored too, one entry per reference
// graph, and replayed for the production nodes before the first change.
// What a decision for production value p depends on (Note [Cut points]): the
// reference graph (its numbers, structure, post-dominators, the reference
// values reached from p's leaves), the production nodes numbered before p and
// the decisions made for them (numbers, shared values, merged cuts: the
// frontier of p's regions), p's cone (its leaves, its regions), and three
// properties production's suffix decides: whether p's node is live (reaches a
// served output), whether p is an output, and p's post-dominator position. So:
// - the entry's key holds the cut search's key of Note [Proof cache]
//   (semantics version, normal form only, term budget), a format version, and
//   the normalized reference graph printed whole;
// - a chain of SHA-256 digests runs over production's nodes in order, each
//   step hashing the previous digest, the node's value-numbering key (op,
//   attributes, operand numbers after the merges so far) and its outputs'
//   types, its liveness, and per output whether it is an output and interior
//   to an expression; a decision is stored under the digest of its node's step
//   and its output index. Equal digests mean an equal prefix with equal
//   properties, so the search would decide exactly as recorded; the first node
//   that differs breaks the chain, and every value from it on is searched.
// A decision is "no cut" or "cut to reference value i, proven at level L with
// assumptions A" (the proof's, which rests on the same key). Used only when the
// search evaluates nothing: with an evaluation the candidates come from Z3
// too, whose wall-clock limit makes a failed candidate no function of its key.
// Not stored when the run's deadline passed during the search (a decision the
// deadline cut short is no decision). A record written by an older chain is a
// miss (the format version); a damaged entry is a miss (src/cache).
struct CutDecision {
  long reference = -1;  // index into the reference's values (inputs, then node outputs); -1: no cut
  Level level = Level::None;
  std::set<std::string> assumptions;
};

class CutRecord {
public:
  // Off (every call a no-op) without a usable cache in `limits`.
  CutRecord(const Graph &ref, const Graph &prod, const ProverLimits &limits);
  bool on() const { return !key_.empty(); }

  // One production node, just numbered: `numberingKey` is its value-numbering
  // key; `interior` per output (post-dominated by another value).
  void step(const Node &node, const std::string &numberingKey, bool live,
            const std::unordered_set<const Value *> &outputs, const std::vector<bool> &interior);
  // The recorded decision for output `index` of the last node stepped.
  std::optional<CutDecision> replay(size_t index) const;
  // `searched`: decided by the search in this run, not replayed.
  void record(size_t index, const CutDecision &d, bool searched);
  const Value *referenceValue(long i) const;
  long indexOf(const Value *referenceValue) const;
  // Stores this run's decisions when some were searched (not all replayed).
  void save();

private:
  ProverLimits limits_;
  std::string key_, digest_;
  std::vector<const Value *> refValues_;
  std::unordered_map<const Value *, long> refIndex_;
  std::unordered_map<std::string, CutDecision> stored_, made_;
  size_t searched_ = 0;
};

}  // namespace torchtv
