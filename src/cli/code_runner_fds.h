// `check --code-runner-fds R,W`: the Python API's way of running the user's
// functions on a refutation (Note [A refutation reproduces on the code] in
// src/verify/code_runs.h). torchtv.verify holds the functions in its own
// process, so it serves the one request a check may make over two pipes it
// passes to `torchtv check`: torchtv writes the request to W and closes it,
// then reads the reply from R to its end.
#pragma once

#include <string>

#include "src/verify/code_runs.h"

namespace torchtv::cli {

// "R,W" as two file descriptors; throws CLI::ValidationError when it is not.
CodeRunner codeRunnerOverFds(const std::string &fds);

}  // namespace torchtv::cli
