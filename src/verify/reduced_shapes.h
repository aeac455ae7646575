// A counterexample found by running a shape-only pair at its small_inputs()
// made minimal and localized on graphs captured at those shapes (Note
// [Refuting at reduced shapes]).
#pragma once

#include "ir/capture_evidence.h"
#include "ir/graph.h"
#include "src/fusion/fusion_library.h"
#include "src/verify/verdict.h"

namespace torchtv {

// Note [Refuting at reduced shapes]
// The eager runs of a shape-only pair at small_inputs() (Note [Eager
// cross-check]) refute outputs, but their counterexample is the runs': not
// shrunk, not localized, and the "diverges at" of such an output is where value
// numbering lost track in the real-shape graphs (often the loss, upstream of
// everything). When the capture holds the pair captured again at the shapes of
// small_inputs() (Note [Reduced-shape graphs] in
// src/capture/torchtv_capture/capture.py), those graphs are normalized and
// refuted by the machinery the real-shape graphs get: seeded random inputs
// confirmed by the evaluator (refute.h), shrinking (shrink.h), replay through
// LibTorch on the reduced originals (counterexample_replay.h) and localization
// (localize.h). Only outputs the runs refuted are tried, those whose cones
// are cheapest to evaluate first (a deep model's loss or output-layer
// gradient needs the forward only), at most three, and the first refutation
// found is kept; the evaluation budget (kReducedEvalBudget, twice the
// general one: one output's cones, where a difference is known to exist)
// counts the elements of that output's cones (refute.h), and every evaluation
// here (confirming, shrinking, localizing) computes those cones only. What is found replaces the runs' counterexample,
// its note stating the reduced shapes, and the refuted output's "diverges at"
// becomes the localized first differing intermediate (value numbering's site
// is where matching lost track, often the loss upstream of a hand-written
// backward). Localization sees nine digits: a bug below that where it is
// planted would be located where it grows past them, downstream (shrinking
// sets most of the input to zero, so that the benchmark's eps + 1e-6 is added
// to a mean of zero and shows at once). Nothing here decides a
// verdict: outputs the runs did not refute are never touched, and graphs at
// other shapes never serve a proof. When nothing is confirmed there (the
// cheapest refuted output's cones past the evaluation budget, with the count;
// ops the evaluator lacks), the runs' counterexample stays, its note saying
// why it is not shrunk.
// `runs`: the capture's eager runs; `ref`/`prod`: the graphs at the reduced
// shapes (null: the capture has none); `fusions`: the definitions the check
// expands, those captured at the reduced shapes included; `on`: which graphs
// these are.
//
// The same refines the runs' counterexample of a pair captured at the shapes it
// ran (`on` = Captured, the check's own graphs) where the check's random search
// found none (the evaluator lacks an op of the graphs): there, and wherever the
// evaluator finds nothing, LibTorch replays are the confirmer (Note
// [Counterexamples through LibTorch] in src/verify/counterexample_replay.h).
enum class RefinedOn {
  ReducedAgain,  // the reduced graphs captured besides the shape-only ones
  ReducedOnly,   // the reduced graphs are the capture's only ones (Note [Refuted
                 // before the shape-only capture] in src/capture/torchtv_capture/capture.py)
  Captured,      // the runs ran at the graphs' own shapes
};
void refineReducedShapeCounterexample(CheckResult &result, const std::optional<EagerEvidence> &runs, const Graph *ref,
                                      const Graph *prod, const FusionLibrary &fusions, RefinedOn on);

}  // namespace torchtv
