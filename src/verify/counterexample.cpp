#include "src/verify/counterexample.h"

#include <cmath>

#include "src/verify/localize.h"
#include "src/verify/counterexample_replay.h"
#include "src/verify/shrink.h"
#include "src/verify/verdict_table.h"

namespace torchtv {

namespace {

std::string typeOf(const eval::EvalTensor &t) { return t.type.str(); }

Counterexample counterexampleOf(const Graph &ref, const Refutation &r, const std::string &output) {
  Counterexample c;
  for (size_t i = 0; i < r.inputs.size(); ++i) {
    TensorValues tv;
    tv.name = ref.inputs()[i]->name;
    tv.type = typeOf(r.inputs[i]);
    for (long double v : r.inputs[i].values) tv.values.push_back(static_cast<double>(v));
    c.inputs.push_back(std::move(tv));
  }
  c.output = output;
  c.index = r.difference.index;
  c.referenceValue = r.difference.referenceValue;
  c.productionValue = r.difference.productionValue;
  c.note = "found by " + r.how + "; " +
           (r.byLibTorch ? reasons::kConfirmedByReplay : "confirmed by evaluating both graphs (Note [Confirming counterexamples])");
  return c;
}

}  // namespace

bool recordRefutation(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                      Refutation refuted, size_t i, CheckResult &result, CounterexampleConfirmer &confirmer) {
  OutputResult &out = result.outputs[i];
  // The pair's counterexample (the first refutation) is shrunk (Note
  // [Shrinking counterexamples]) and localized (Note [Localized
  // counterexamples]); a shrunk input whose replay does not refute (it did not
  // replay, or shrinking took it out of the reference's domain) gives way to
  // the input found.
  const bool first = !result.counterexample;
  const Refutation found = refuted;
  std::string shrunk = first ? shrinkRefutation(ref, prod, refuted, confirmer) : "";
  ReplayOutcome replay = replayOnOriginals(origRef, origProd, refuted.inputs, i, refuted.difference.index);
  if (!shrunk.empty() && !refutes(evidenceOfReplay(replay.kind))) {
    refuted = found;
    shrunk.clear();
    replay = replayOnOriginals(origRef, origProd, refuted.inputs, i, refuted.difference.index);
  }
  // Note [Replay outcomes fail closed]: the table decides what the replay makes of the output.
  const Evidence evidence = evidenceOfReplay(replay.kind);
  if (evidence == Evidence::RefutedOpMissing && !refuted.difference.productionRaises &&
      (!std::isfinite(refuted.difference.referenceValue) || !std::isfinite(refuted.difference.productionValue))) {
    // Note [Confirming counterexamples]: a NaN against 0 may be the semantics an op's definition
    // chose (sdpa's fully masked rows: NaN up to torch 2.4, 0 since); only LibTorch's kernels tell.
    out.reason += std::string("; ") + reasons::kNonFiniteNotReplayed + replay.detail + ")";
    return false;
  }
  applyEvidence(out, evidence);
  if (!refutes(evidence)) {
    out.reason += "; " + replayNotRefuting(evidence, replay.detail);
    return false;
  }
  if (replay.kind == ReplayOutcome::Kind::ProductionRaised) {
    // Note [Reference kernel domains]: the reference computes a value here, production raises.
    refuted.difference.productionRaises = true;
  } else if (replay.kind == ReplayOutcome::Kind::Replayed) {
    refuted.difference.index = replay.index;
    refuted.difference.referenceValue = replay.referenceValue;
    refuted.difference.productionValue = replay.productionValue;
  }
  const std::string how = replayRefuting(evidence, replay.detail);
  out.reason = std::string(reasons::kRefuted) + " (" + refuted.how + "; " + how + ")";
  if (first) {
    result.counterexample = counterexampleOf(ref, refuted, out.name);
    result.counterexample->note += "; " + how;
    result.counterexample->shrunk = shrunk;
    const std::vector<eval::EvalTensor> *asFound = shrunk.empty() ? nullptr : &found.inputs;
    result.counterexample->firstDifference = localizeDifference(ref, prod, refuted.inputs, i, asFound);
    // Graphs the evaluator cannot evaluate: LibTorch's values (Note [Counterexamples through LibTorch]).
    if (!result.counterexample->firstDifference)
      result.counterexample->firstDifference = localizeDifferenceByReplay(origRef, origProd, refuted.inputs, i, asFound);
  }
  return true;
}

}  // namespace torchtv
