// Running a pair file's Python in a sandbox (`verify --sandbox`, `ci` on a manifest that says
// its pairs come from untrusted changes).
//
// Note [The capture sandbox]
// `verify` runs the pair file's code: on an open-source repository a gate runs code from forks.
// Under --sandbox the capture process (and the code runs of Note [A refutation reproduces on the
// code]) runs under Debian's bubblewrap (bwrap):
//   - the file system is the machine's, read-only (/tmp included: pair files may live there), but
//     for a private scratch folder (TMPDIR=/dev/shm, a fresh tmpfs) and the one folder the capture
//     writes its result to (none when it prints it on stdout);
//   - no network (a new network namespace has only a loopback that is down), its own process,
//     IPC and host-name namespaces, and it dies with torchtv (--die-with-parent);
//   - at most `processes` processes and threads (RLIMIT_NPROC: a fork bomb meets EAGAIN) and
//     `memoryGiB` of address space (RLIMIT_AS: an allocation beyond it fails);
//   - the wall-clock limit of the capture itself (--capture-timeout, --timeout), as without it.
// RLIMIT_NPROC counts the tasks of a user id and does not hold for root, so when torchtv runs as
// root the code runs as the user `nobody` (65534) inside the sandbox, keeping only the capability
// to read every file (CAP_DAC_READ_SEARCH: the pair file may sit in /root) and the folder it writes
// is handed to that user; as another user, the limit is that user's running tasks plus
// `processes`. What it does not stop: reading any file on the machine (the capture needs the
// user's code and torch; secrets belong outside the CI machine's file system), and CPU use within
// the time limit.
#pragma once

#include <string>
#include <vector>

namespace torchtv {

struct Sandbox {
  bool enabled = false;
  double memoryGiB = 8;  // address space; torch needs about 2
  int processes = 64;    // tasks (processes and threads) the code may add
};

// argv wrapped so that it runs in the sandbox, `writableDir` ("" for none) the one folder it may
// write. Throws std::runtime_error when the sandbox cannot be made (no bwrap, say why).
std::vector<std::string> sandboxedArgv(const std::vector<std::string> &argv, const Sandbox &sandbox,
                                       const std::string &writableDir);

// A sentence a user reads under a capture error from inside the sandbox: what it forbids.
std::string sandboxLimitsText(const Sandbox &sandbox);

}  // namespace torchtv
