// Running a child process with its output captured and a time limit.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace torchtv {

struct ProcessResult {
  int exitCode = -1;      // valid when exited
  bool exited = false;    // false: killed by a signal (or the time limit)
  int signal = 0;
  bool timedOut = false;
  std::string out;        // everything written to stdout
  std::string err;        // everything written to stderr
};

struct ProcessOptions {
  double timeoutSeconds = 0;  // 0: no limit
  // Extra environment entries ("NAME=value") on top of the parent's.
  std::vector<std::string> env;
};

// Runs argv[0] (looked up on PATH) with stdin closed. Throws std::runtime_error
// only when the process cannot be started at all.
ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options = {});

// "exited with 3", "killed by signal 11 (Segmentation fault)", "timed out after 30 s".
std::string describeExit(const ProcessResult &r, const ProcessOptions &options = {});

}  // namespace torchtv
