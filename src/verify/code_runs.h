// A refutation of the graphs, held against the code that runs.
#pragma once

#include <functional>
#include <string>

#include "src/verify/verdict.h"

namespace torchtv {

// Note [A refutation reproduces on the code]
// The graphs are a capture of the user's code, not the code (a value frozen
// into a graph as a constant, code that checks whether it is traced, a tracer
// bug), so for a pair file (`verify`) every output the graphs refute is run
// through the user's two functions before it is reported: once the decision
// is made, the pair's counterexample (its inputs in their own, captured
// dtypes) goes to the capture package (`python -m torchtv_capture PAIR.py
// --run-code`), which runs reference() and production() on it eagerly and
// says, per refuted output, whether the code shows the difference; what
// "shows" means is defined there, in one place (Note [A refutation
// reproduces on the code] in src/capture/torchtv_capture/code_runs.py:
// production raising where the reference runs, NaN or infinity against a
// finite value, or a difference beyond what the code's precision explains).
// - An output the code shows stays not_equivalent; its reason says it was
//   reproduced on the code, and how.
// - An output the code does not show is unknown: the graphs differ on this
//   input but the code does not, so the capture is not the code that runs.
//   The graphs' refutation stays in the reason and the counterexample stays
//   as evidence (its note says the code does not show it). A reference that
//   raises on the input shows nothing either (the input is outside its
//   domain).
// - When the code cannot be run (the runner fails, the counterexample kept
//   no inputs), the refutation is not confirmed: unknown, saying why.
// Refutations that are runs of the code already (the eager cross-check's,
// reasons::kRefutedByRunning) are run too, for their reason to say whether the
// graphs' counterexample reproduced, but nothing the run shows changes their
// verdict (the code's own runs showed the difference; Note [Verdict table]).
// Outputs whose types differ are not run. One run per pair with refutations, none for a pair without: the
// outputs are all judged on the pair's one counterexample (only it keeps its
// inputs), so an output the graphs refuted on another input and the code
// does not show on this one is unknown too, saying so
// (reasons::kRefutedOnAnotherInput): the code agreeing on an input where the
// graphs were not shown to differ says nothing about the capture.
using CodeRunner = std::function<std::string(const std::string &request)>;

// The request a CodeRunner answers: the counterexample's inputs (name, type, values; NaN and
// infinities as strings) and the outputs at `refuted` (name, position, the counterexample's index
// for its own output). `torchtv verify --repro` writes it for the user to run (src/cli/repro.h).
std::string codeRunRequest(const CheckResult &result, const std::vector<size_t> &refuted);

// Holds the refutations of `result` against the code (above); nothing when
// `run` is empty or nothing was refuted.
void applyCodeRuns(CheckResult &result, const CodeRunner &run);

}  // namespace torchtv
