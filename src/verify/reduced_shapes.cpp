#include "src/verify/reduced_shapes.h"

#include <algorithm>
#include <string>

#include "ir/rewrite.h"
#include "src/normalize/normalize.h"
#include "src/verify/counterexample.h"
#include "src/verify/refute.h"

namespace torchtv {

namespace {

// Why the runs' counterexample stays as it is, appended to its note.
void keepRunsCounterexample(Counterexample &cex, const std::string &why) {
  cex.note += std::string("; ") + reasons::kReducedNotShrunk + why;
}

// "small_inputs() (x [8, 64] for [2048, 4096], ...)": the runs' inputs without their random draws.
std::string reducedShapes(std::string runsInputs) {
  size_t draws = runsInputs.rfind(" and ");
  if (draws != std::string::npos && runsInputs.find("random draws", draws) != std::string::npos) runsInputs.resize(draws);
  return runsInputs;
}

}  // namespace

void refineReducedShapeCounterexample(CheckResult &result, const std::optional<EagerEvidence> &runs,
                                      const Graph *origRef, const Graph *origProd, const FusionLibrary &fusions) {
  // Only the runs' own counterexample at reduced shapes (it carries no inputs); one found on the
  // captured graphs is minimal and localized already.
  if (!runs || !runs->ran || !runs->reducedShapes || !result.counterexample || !result.counterexample->inputs.empty())
    return;
  Counterexample &cex = *result.counterexample;
  if (!origRef || !origProd) return keepRunsCounterexample(cex, reasons::kReducedNotCaptured);
  if (origRef->outputNames() != origProd->outputNames() || origRef->inputs().size() != origProd->inputs().size() ||
      origRef->outputs().size() != result.outputs.size())
    return keepRunsCounterexample(cex, reasons::kReducedOtherInterface);
  // The outputs the runs refute.
  std::vector<size_t> refuted;
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    const EagerOutputCheck *c = runs->find(result.outputs[i].name);
    if (result.outputs[i].verdict != Verdict::NotEquivalent || !c || !c->beyondRounding) continue;
    if (origRef->outputNames()[i] != result.outputs[i].name) return keepRunsCounterexample(cex, reasons::kReducedOtherInterface);
    refuted.push_back(i);
  }
  if (refuted.empty()) return;
  try {
    // Compared as the real-shape graphs are: normalized copies.
    NormalizeOptions no;
    no.rules = &bundledRules();
    std::unique_ptr<Graph> ref = cloneGraph(*origRef), prod = cloneGraph(*origProd);
    normalizeGraph(*ref, fusions, no);
    normalizeGraph(*prod, fusions, no);
    if (!withinEvalBudget(*ref, *prod)) return keepRunsCounterexample(cex, reasons::kReducedPastBudget);
    auto confirmer = makeEvaluatorConfirmer();
    std::vector<Refutation> found = refuteByRandomInputs(*ref, *prod, refuted, *confirmer);
    if (found.empty()) return keepRunsCounterexample(cex, reasons::kReducedNotConfirmed);
    // The first found: by the earliest input distribution (normal values before small integers,
    // whose large values saturate what localization compares).
    Refutation r = found.front();
    const size_t i = r.difference.output;
    // recordRefutation shrinks, replays and localizes into a scratch result: the verdicts are
    // the runs' and stay so.
    CheckResult scratch;
    scratch.outputs = result.outputs;
    if (!recordRefutation(*origRef, *origProd, *ref, *prod, r, i, scratch, *confirmer) || !scratch.counterexample)
      return keepRunsCounterexample(cex, reasons::kReducedNotReplayed + scratch.outputs[i].reason);
    Counterexample refined = std::move(*scratch.counterexample);
    const std::string where = std::string(reasons::kReducedShapes) + reducedShapes(runs->inputs);
    refined.note = where + reasons::kReducedCapturedAgain + refined.note;
    OutputResult &out = result.outputs[i];
    out.reason += "; " + where + reasons::kReducedCapturedAgain + scratch.outputs[i].reason;
    // The localized value becomes where the output diverges: value numbering's site is where
    // matching lost track (often the loss, upstream of a hand-written backward).
    if (refined.firstDifference) {
      out.referenceSite = refined.firstDifference->reference;
      out.productionSite = refined.firstDifference->production;
    }
    cex = std::move(refined);
  } catch (const std::exception &e) {  // a reduced graph torchtv cannot handle: the runs' verdict stands
    keepRunsCounterexample(cex, e.what());
  }
}

}  // namespace torchtv
