// A confirmed refutation becomes an output's not_equivalent verdict and, for
// the first one, the pair's counterexample: shrunk, replayed through LibTorch
// on the original graphs and localized.
#pragma once

#include "ir/graph.h"
#include "src/verify/counterexample_confirm.h"
#include "src/verify/refute.h"
#include "src/verify/verdict.h"

namespace torchtv {

// Records a refutation of output i of the compared graphs `ref`/`prod` after
// replaying it through LibTorch on the originals (Note [Replaying
// counterexamples]); false when it did not replay (the output's reason then
// says why). The pair's first refutation becomes result.counterexample.
bool recordRefutation(const Graph &origRef, const Graph &origProd, const Graph &ref, const Graph &prod,
                      Refutation refuted, size_t i, CheckResult &result, CounterexampleConfirmer &confirmer);

}  // namespace torchtv
