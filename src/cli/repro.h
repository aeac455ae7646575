// `torchtv verify --repro DIR`: the counterexample as files a user runs without torchtv's CLI.
#pragma once

#include <string>

#include "src/verify/verdict.h"

namespace torchtv::cli {

// Note [Counterexamples a user can run]
// A counterexample in a report is read; one on disk is run, changed and
// debugged. For a pair file whose check kept a counterexample with its
// inputs, `--repro DIR` writes DIR/counterexample.json (the request the
// refutation's own confirmation runs, Note [A refutation reproduces on the
// code] in src/verify/code_runs.h: the inputs' names, types and values, and the
// outputs that are not equivalent) and DIR/repro.py, which builds the inputs as
// tensors (saved to DIR/inputs.pt for torch.load), runs the pair's reference()
// and production() on them the way the capture runs them (torchtv_capture's
// run_code, so train steps, in-place inputs and dtypes are as in the check),
// prints per output whether the code shows the difference and how, and exits 1
// when it does. Nothing is written without a counterexample with inputs; the
// text says so on stderr.
// Returns what was written, or throws InputError when DIR cannot be written.
std::string writeRepro(const CheckResult &result, const std::string &pairPath, const std::string &dir);

}  // namespace torchtv::cli
