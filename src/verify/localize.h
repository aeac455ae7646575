// The first intermediate value where production departs from the reference
// on a counterexample (Note [Localized counterexamples]); the counterexample
// was made small first (src/verify/shrink.h).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "src/eval/concrete.h"
#include "src/verify/verdict.h"

namespace torchtv {

// Note [Localized counterexamples]
// Both graphs are evaluated at Wide precision (Note [Evaluation
// precisions]) on the shrunk input, every intermediate kept (past the
// evaluation budget, those in the refuted output's cone only: a deep model's
// output-layer gradient needs the forward, not the backward). A production
// value agrees with the reference when a reference value of the same type
// equals it to 9 significant digits (rounding noise at Wide precision is far
// below that; the smallest planted bugs, 1e-7 relative in f32 code, are
// above). The first production node, in topological order and in the cone of
// the refuted output, whose value agrees with no reference value, and from
// which no node downstream (in the cone) agrees with a reference value again
// (a non-constant one, reached through non-constant values: after shrinking,
// a layer whose weights are zero computes a softmax of zero scores that agrees
// whatever flows into it), is where production departs: another decomposition's
// own intermediate re-converges (a fused logsumexp the reference never
// materializes, whose log-softmax it does compute), a departure does not.
// Its counterpart is the reference value of the same type and op, agreeing
// with no production value, closest to it (else the closest of its type and
// op: after shrinking, the reference's value may equal another production
// value; else the same of any op, e.g. when production adds a term after the
// reference's last step). When no reference
// value has its type at all (a reduction over the wrong dim gives another
// shape), its counterpart is a reference value of the same dtype and rank, by
// the same op where one is, nearest its relative position, and the report
// says "shape differs" with both types. A shrunk input has many zeros, and a
// zero value agrees with any zero of its type in the reference: where the
// planted line computes zeros in production and not in the reference (a
// dropped term whose other terms' weights shrinking set to zero), the shrunk
// input departs downstream of it. So the input as found (random, no
// coincidences) is localized too, and where the shrunk input departs with a
// value of all zeros (a hand-written backward's zero where the reference's own
// decomposition has none, in a layer whose weights shrinking set to zero),
// where the input as found departs is reported instead, with the shrunk
// input's values there when they differ. Otherwise the shrunk input's
// departure stands: random inputs alone miss a difference below nine digits
// that shrinking brings out (eps + 1e-6 added to a variance of 50).
// Heuristic by nature: the report says "first differing intermediate", not "the bug".

// Where a node is, for reports: its first result's name, its op, its source line.
Site siteOf(const Node &n);

// Note [Runs of a line]
// No capture records a loop iteration or a module path per node, but a loop
// that runs a line N times leaves N nodes of that op at that line, in the
// order they ran: the k-th of them is the k-th run (a forward loop's layer k-1;
// a backward loop over reversed layers counts from the last layer). Reports
// say "run k of N of this line" so that a reader of a 64-layer step knows which
// iteration departs first. Sites of one graph, with their runs counted.
class GraphSites {
public:
  explicit GraphSites(const Graph &g);
  Site operator()(const Node &n) const;
  // Counts the runs of a site of this graph (found by its value's name).
  void count(Site &s) const;

private:
  std::unordered_map<std::string, std::pair<int, int>> runs_;  // by the node's first result's name
};

// Note [Localized type differences]
// Outputs whose types differ are not_equivalent on every input, so the
// counterexample is the smallest input (every element zero: in range as an
// index too) and its localization is static, from value numbering: the first
// node of each side where matching loses track (classify's "diverges at"),
// when their types differ; else the outputs themselves (nothing earlier
// differs in type: a cast after the last shared value). The difference is the
// types ("dtype differs" or "shape differs", both given), no values.
// `refFirst`/`prodFirst`: those first unmatched nodes, null when unknown.
IntermediateDifference localizeTypeDifference(const Value &refOut, const Value &prodOut, const Node *refFirst,
                                              const Node *prodFirst);

// The counterexample of output `output`, whose types differ: all-zero inputs,
// localized as above; `note` says what differs.
Counterexample typeDifferenceCounterexample(const Graph &ref, const Graph &prod, size_t output, const std::string &note,
                                            const Node *refFirst, const Node *prodFirst);

// Nullopt when the graphs cannot be evaluated or no departing value is found.
// `found`: the input before shrinking, where it differs from `inputs`.
std::optional<IntermediateDifference> localizeDifference(const Graph &ref, const Graph &prod,
                                                         const std::vector<eval::EvalTensor> &inputs, size_t output,
                                                         const std::vector<eval::EvalTensor> *found = nullptr);

// The same on the ORIGINAL graphs' values replayed through LibTorch, where the
// evaluator cannot evaluate them (Note [Counterexamples through LibTorch] in
// src/verify/counterexample_replay.h): within the evaluation budget only, values
// compared to kReplayDigits significant digits.
std::optional<IntermediateDifference> localizeDifferenceByReplay(const Graph &ref, const Graph &prod,
                                                                 const std::vector<eval::EvalTensor> &inputs,
                                                                 size_t output,
                                                                 const std::vector<eval::EvalTensor> *found = nullptr);

}  // namespace torchtv
