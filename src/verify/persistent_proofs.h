// The prover's results kept across runs (src/cache/): what the key of a
// region's outcome holds and which stored outcome may answer a query.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/verify/prover.h"

namespace torchtv {

// Note [Proof cache]
// An outcome of Prover::prove is stored under the SHA-256 of: the cache
// format, the semantics version (Note [Semantics version], plus
// kSemanticsEpoch and $TORCHTV_CACHE_SALT), the widening, whether the solver
// may run, the term budget, and the region's key at the smallest frontier,
// written from the graph (Note [Region keys from the graph]: ops, attributes
// with every digit of a constant, result types, frontier tensors renumbered
// by first use). What a stored outcome may answer:
// - proven: any query with the same key; a proof does not depend on the
//   budget it was found under. One proven at a widened frontier is reused, as
//   in the memo, only when the current region widened at that frontier has
//   the same graph key (the entry carries it).
// - not proven: only a query whose budget (rlimit, solver memory, seconds per
//   query) is no larger than the one it ran under: an `unknown` under a
//   smaller budget never answers a larger one. Not stored at all when the run's
//   global deadline shortened a query or cut the ladder short, or when Z3
//   crashed: such an unknown says nothing about the budget.
// - a Z3 model (the outputs differ over the reals) is never stored: its slots
//   are this run's value numbers, and the counterexample it leads to must be
//   found and confirmed on the current graphs (src/verify/counterexample_confirm.cpp), so a
//   refutation never rests on the cache. A "not proven" that had a model is
//   stored without it and answers only a caller that reads no model (the cut
//   search, ProverLimits::needsModels: most of its candidates fail this way,
//   and they are most of a deep model's decide time).
// Each entry also carries the digest of its key and a checksum of its payload
// (src/cache/proof_cache.cpp): a damaged or foreign entry is a miss.
std::string persistentKey(const std::string &regionKey, Widening widening, const ProverLimits &limits);
// The second key of a proof at a widened frontier: regions with one smallest
// key (the layers of a model) can need different widened regions, and each
// keeps its own proof under this key (the first key holds the last one).
std::string widenedPersistentKey(const std::string &key, const ProofOutcome &at, const std::string &widenedRegionKey);
// The keys `o`, found for `key`, is kept under: `key`, and its second key when
// it is a proof at a widened frontier (the in-run memo and the cache alike).
std::vector<std::string> keysToKeep(const std::string &key, const ProofOutcome &o);
std::optional<ProofOutcome> lookupPersistent(const std::string &key, const ProverLimits &limits);
// Stores `o` if the rules above allow; `budgetCut`: the deadline shortened it.
void storePersistent(const std::string &key, const ProofOutcome &o, const ProverLimits &limits, bool budgetCut);

// The semantics version of this build (for `torchtv cache stats`).
std::string semanticsVersion();

}  // namespace torchtv
