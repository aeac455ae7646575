// Whole decisions kept across runs: an unchanged pair answered after reading
// and normalizing, without matching or proving again (Note [Result cache]).
#pragma once

#include <optional>
#include <set>
#include <string>

#include "ir/graph.h"
#include "src/verify/check.h"
#include "src/verify/verdict.h"

namespace torchtv {

// What deciding the outputs yields, before the steps that run on every check
// (capture evidence, --self-check, --require): the per-output verdicts, the
// counterexample, the match map, the prover's counters, and the domain
// assumptions of real-level proofs.
struct Decision {
  CheckResult result;
  AssumptionCounts realAssumptions;  // summarizeRealAssumptions's
};

// Note [Result cache]
// A decision whose every output is proven equivalent is stored whole, in the
// proof cache's store (Note [Proof cache]), under the SHA-256 of: the format,
// the semantics version, every option that can change a verdict, a level or a
// reason (normalization, strategy, cut points, rlimit, solver memory; --require
// applies after the store, so a level rounded decision is kept as such), and the
// two graphs as given and as normalized, with names, types, constants, source
// locations and output names (everything a reason or a report names; the graphs
// as given decide which outputs are bitwise equal as written, the normalized ones
// carry what the fusion definitions expanded: a user's --fusions folder, those
// in the input files, the bundled fusions/). The graphs are hashed field by field
// (SHA-256, each field after its length), not printed: printing the four graphs
// and hashing the text (8 MB) was a quarter of the instructions a 64-layer check
// with a warm cache ran above the read + normalize floor (callgrind), and the
// nodes' source file paths two fifths of that text: what repeats (operations,
// types, attributes, files) is hashed once, in a table that nodes index, and
// operands by their definition's position. A later check of the same
// graphs is answered after normalizing, the floor: no value numbering, cut
// search or prover. Only all-equivalent decisions are stored: a proof does not
// depend on the budget it was found under, where an unknown may, and a
// refutation must be found and confirmed on the current graphs. Not consulted
// when running the code refuted an output (Note [Cross-checks]): the uncached
// path sends such an output to the prover only within the evaluation budget.
// Each output's reason then ends "from the proof cache".
class ResultCache {
public:
  // Off (every call a no-op) when `options.proofCache` is null or unusable.
  ResultCache(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
              const CheckOptions &options);
  std::optional<Decision> lookup();
  // Stores `d` when Note [Result cache] allows it; says whether it did.
  bool store(const Decision &d);
  bool on() const { return !key_.empty(); }

private:
  const CheckOptions &options_;
  std::string key_;
};

}  // namespace torchtv
