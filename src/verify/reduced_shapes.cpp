#include "src/verify/reduced_shapes.h"

#include <algorithm>
#include <chrono>
#include <string>

#include <spdlog/spdlog.h>

#include "ir/rewrite.h"
#include "src/normalize/normalize.h"
#include "src/verify/counterexample.h"
#include "src/verify/counterexample_replay.h"
#include "src/verify/refute.h"

namespace torchtv {

namespace {

// Refuted outputs tried, cheapest first, before the runs' counterexample is kept.
constexpr size_t kReducedOutputsTried = 3;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Why the runs' counterexample stays as it is, appended to its note.
void keepRunsCounterexample(Counterexample &cex, const std::string &why) {
  cex.note += std::string("; ") + reasons::kReducedNotShrunk + why;
}

// "small_inputs() (x [4, 32] for [2048, 4096], ...)": the runs' inputs without their random draws.
std::string reducedShapes(std::string runsInputs) {
  size_t draws = runsInputs.rfind(" and ");
  if (draws != std::string::npos && runsInputs.find("random draws", draws) != std::string::npos) runsInputs.resize(draws);
  return runsInputs;
}

}  // namespace

void refineReducedShapeCounterexample(CheckResult &result, const std::optional<EagerEvidence> &runs,
                                      const Graph *origRef, const Graph *origProd, const FusionLibrary &fusions,
                                      RefinedOn on) {
  // Only the runs' own counterexample (it carries no inputs); one found on the captured graphs
  // is minimal and localized already.
  const bool reduced = on != RefinedOn::Captured;
  if (!runs || !runs->ran || runs->reducedShapes != reduced || !result.counterexample ||
      !result.counterexample->inputs.empty())
    return;
  Counterexample &cex = *result.counterexample;
  // At the captured shapes the runs' counterexample stays as it was when nothing better is found.
  auto keep = [&](const std::string &why) {
    if (reduced) keepRunsCounterexample(cex, why);
  };
  if (!origRef || !origProd) return keep(reasons::kReducedNotCaptured);
  if (origRef->outputNames() != origProd->outputNames() || origRef->inputs().size() != origProd->inputs().size() ||
      origRef->outputs().size() != result.outputs.size())
    return keep(reasons::kReducedOtherInterface);
  // The outputs the runs refute.
  std::vector<size_t> refuted;
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    const EagerOutputCheck *c = runs->find(result.outputs[i].name);
    if (result.outputs[i].verdict != Verdict::NotEquivalent || !c || !c->beyondRounding) continue;
    // Graphs the check proved equal on this output (the runs contradict them: an internal
    // inconsistency, Note [Cross-checks]) cannot show the difference: not searched.
    if (!reduced && result.outputs[i].code == ReasonCode::RunsContradictProof) continue;
    if (origRef->outputNames()[i] != result.outputs[i].name) return keep(reasons::kReducedOtherInterface);
    refuted.push_back(i);
  }
  if (refuted.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  try {
    // Compared as the real-shape graphs are: normalized copies.
    NormalizeOptions no;
    no.rules = &bundledRules();
    std::unique_ptr<Graph> ref = cloneGraph(*origRef), prod = cloneGraph(*origProd);
    normalizeGraph(*ref, fusions, no);
    normalizeGraph(*prod, fusions, no);
    // The refuted outputs whose cones are cheapest to evaluate first (a deep model's loss or
    // output-layer gradient needs the forward only, a first layer's gradient the whole
    // backward too); one refutation is all the pair reports.
    std::vector<std::pair<size_t, size_t>> byCost;  // (elements evaluated, output)
    for (size_t o : refuted) {
      std::vector<size_t> one = {o};
      byCost.emplace_back(evaluatedElements(*ref, *prod, &one), o);
    }
    std::sort(byCost.begin(), byCost.end());
    spdlog::debug("reduced shapes: {} refuted outputs, the cheapest cone {} elements", byCost.size(), byCost.front().first);
    std::vector<size_t> one = {byCost.front().second};
    if (!withinEvalBudget(*ref, *prod, &one, kReducedEvalBudget))
      return keep(reasons::kReducedPastBudget + std::to_string(byCost.front().first) +
                                             reasons::kReducedPastBudgetTail + std::to_string(kReducedEvalBudget) + ")");
    // The evaluator first; where it finds nothing (an op it lacks), LibTorch's kernels.
    std::unique_ptr<CounterexampleConfirmer> confirmer;
    std::optional<Refutation> first;
    for (int by = reduced ? 0 : 1; by < 2 && !first; ++by) {  // the check's own search used the evaluator
      confirmer = by == 0 ? makeEvaluatorConfirmer() : makeReplayConfirmer(*origRef, *origProd);
      for (size_t k = 0; k < byCost.size() && k < kReducedOutputsTried && !first; ++k) {
        one = {byCost[k].second};
        if (!withinEvalBudget(*ref, *prod, &one, kReducedEvalBudget)) break;
        std::vector<Refutation> found = refuteByRandomInputs(*ref, *prod, one, *confirmer, kReducedEvalBudget);
        // By the earliest input distribution (normal values before small integers, whose
        // large values saturate what localization compares).
        if (!found.empty()) first = found.front();
      }
      if (first) first->byLibTorch = by == 1;
    }
    if (!first) return keep(reasons::kReducedNotConfirmed);
    Refutation r = *first;
    const size_t i = r.difference.output;
    spdlog::debug("reduced shapes: output {} refuted by {} in {:.2f} s", i, r.how, seconds(start));
    // recordRefutation shrinks, replays and localizes into a scratch result: the verdicts are
    // the runs' and stay so.
    CheckResult scratch;
    scratch.outputs = result.outputs;
    if (!recordRefutation(*origRef, *origProd, *ref, *prod, r, i, scratch, *confirmer) || !scratch.counterexample)
      return keep(reasons::kReducedNotReplayed + scratch.outputs[i].reason);
    spdlog::debug("reduced shapes: shrunk, replayed and localized in {:.2f} s", seconds(start));
    Counterexample refined = std::move(*scratch.counterexample);
    const std::string where =
        !reduced ? std::string(reasons::kRunsCounterexampleRefined)
                 : std::string(reasons::kReducedShapes) + reducedShapes(runs->inputs) +
                       (on == RefinedOn::ReducedOnly ? reasons::kReducedCapturedOnly : reasons::kReducedCapturedAgain);
    refined.note = where + refined.note;
    OutputResult &out = result.outputs[i];
    out.reason += "; " + where + scratch.outputs[i].reason;
    // The localized value becomes where the output diverges: value numbering's site is where
    // matching lost track (often the loss, upstream of a hand-written backward).
    if (refined.firstDifference) {
      out.referenceSite = refined.firstDifference->reference;
      out.productionSite = refined.firstDifference->production;
    }
    cex = std::move(refined);
  } catch (const std::exception &e) {  // a reduced graph torchtv cannot handle: the runs' verdict stands
    keep(e.what());
  }
}

}  // namespace torchtv
