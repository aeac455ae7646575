// Refutation: seeded random inputs (and solver models) evaluated on both
// graphs, confirmed by a CounterexampleConfirmer (Note [Confirming counterexamples]).
#pragma once

#include <optional>
#include <vector>

#include "src/smt/query.h"
#include "src/verify/counterexample_confirm.h"
#include "src/verify/input_domains.h"

namespace torchtv {

struct Refutation {
  ConfirmedDifference difference;
  std::vector<eval::EvalTensor> inputs;
  std::string how;  // "random inputs (seed 3, small integers)", "a Z3 model"
  // Confirmed by LibTorch's kernels, not the evaluator (Note [Counterexamples through LibTorch]).
  bool byLibTorch = false;
};

// Elements evaluated per run above which the random search is skipped.
constexpr size_t kEvalBudget = 2000000;
// The same for an output that the eager runs at reduced shapes already refuted
// (Note [Refuting at reduced shapes]): one output's cones, searched where a
// difference is known to exist. Measured (2026-12-02): the 2.9 million
// elements of a 64-layer model's first-layer gradient at D=32, T=4 take about
// 0.5 s of CPU per native evaluation, the whole check 425 MB.
constexpr size_t kReducedEvalBudget = 4000000;

// Whether evaluating both graphs stays within the evaluation budget (the
// random search and the cut-point search are skipped past it). The budget
// counts the elements evaluation computes: with `outputs` (positions), only
// those outputs' cones, which is all that the confirmer evaluates for them.
bool withinEvalBudget(const Graph &ref, const Graph &prod, const std::vector<size_t> *outputs = nullptr,
                      size_t budget = kEvalBudget);
// The elements counted against it.
size_t evaluatedElements(const Graph &ref, const Graph &prod, const std::vector<size_t> *outputs = nullptr);

// Fixed seed: runs are reproducible.
constexpr unsigned kRefuteSeed = 20240607;

// Tries a fixed list of seeded input distributions, in order, and refutes each
// of `outputs` with the first that shows it differs: one refutation per output
// refuted, in the order found (empty when none is, or the graphs cannot be
// evaluated, e.g. symbolic shapes). An output gets the same inputs as when
// searched alone.
// `referenceDomains`: the reference kernels' index domains (Note [Reference kernel domains] in
// src/verify/input_domains.h), whose points besides [0, size) the domain distribution draws too.
std::vector<Refutation> refuteByRandomInputs(const Graph &ref, const Graph &prod, const std::vector<size_t> &outputs,
                                             CounterexampleConfirmer &confirmer, size_t budget = kEvalBudget,
                                             const ReferenceDomains *referenceDomains = nullptr);

// Builds inputs from a real-level model over graph inputs (slot = input
// position), filling the rest with seeded random values, and confirms them.
// `referenceDomains`: a model outside a range the user declared is none (Note [Declared input domains]).
std::optional<Refutation> refuteByModel(const Graph &ref, const Graph &prod, const std::vector<size_t> &outputs,
                                        const std::vector<smt::ModelRead> &model, CounterexampleConfirmer &confirmer,
                                        const ReferenceDomains *referenceDomains = nullptr);

// Seeded random inputs of one distribution (also used by the self-check).
// kind: 0 normal, 1 small integers (integer tensors in [0, 4): indices in
// range), 2 tiny (1e-3), 3 large (x30), 4 rows of equal values, 5 special
// values (NaN, +-inf, +-0.0) mixed into normal ones, kDomainKind each input in
// its domain (`domains`, from inputDomains(g): Note [Input domains]), else
// normal; kMaskKind masks (bool inputs and additive masks) in rows all kept,
// all masked, one kept and random, the rest as in kDomainKind; kEdgeKind
// floats from +-0, subnormals, ties with the row's previous value, f16 values
// near 65504, and normal ones (never inf or NaN: Note [Input domains]), the
// rest as in kDomainKind. Integer tensors take [-5, 5] but in
// kinds 1, 3, 5 and kEdgeKind (and in the domain kinds where they index).
constexpr int kInputKinds = 6;  // the kinds before kDomainKind, which need no domains
constexpr int kDomainKind = 6;
constexpr int kMaskKind = 7;
constexpr int kEdgeKind = 8;
std::vector<eval::EvalTensor> randomInputs(const Graph &g, unsigned seed, int kind,
                                           const std::vector<InputDomain> *domains = nullptr);
// How a refutation names the distribution that found it: "normal", ...
const char *inputKindName(int kind);

}  // namespace torchtv
