// Runs a program as a child process, feeding it stdin and collecting its
// output, with a wall-clock limit. Used where a crash or hang of the other
// program must not take torchtv down with it (Graphviz's dot, `torchtv ci`'s
// per-pair runs).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace torchtv {

struct ProcessResult {
  bool started = false;   // false: the program could not be executed (see error)
  bool timedOut = false;  // killed after the time limit
  int exitCode = -1;      // valid when it exited normally
  int signal = 0;         // non-zero when a signal ended it
  std::string out, err;
  std::string error;      // why it could not be started
};

struct ProcessOptions {
  std::string stdinText;
  double timeoutSeconds = 60;
  // Extra environment entries ("NAME=value") on top of the inherited ones.
  std::vector<std::string> env;
};

// Runs argv[0] (looked up in PATH when it has no '/') with the given arguments.
// Never throws for the child's failures; they are described in the result.
ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options = {});

// Runs `work` in a forked child, without exec (the child has the parent's
// memory: its graphs, the libraries it loaded), and collects into `out` what
// `work` writes to the file descriptor it is given, with a wall-clock limit.
// For work that may crash or hang in a library (LibTorch replay, Z3): the
// child dies with its parent (PR_SET_PDEATHSIG), writes no core file, has the
// default action for crash signals, and ends with _exit (no atexit handlers or
// static destructors of what it loaded); exit code 70 when `work` throws.
// `out` holds what was written before a crash too.
ProcessResult runForked(const std::function<void(int fd)> &work, double timeoutSeconds);

// Writes all of `text` to `fd`; false on a write error.
bool writeAll(int fd, const std::string &text);

// "exit 3", "signal 11 (Segmentation fault)", "timed out after 5 s", ...
std::string describeExit(const ProcessResult &r, double timeoutSeconds);

// Absolute path of a program in PATH, or "" when there is none.
std::string findProgram(const std::string &name);

}  // namespace torchtv
