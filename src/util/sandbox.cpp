#include "src/util/sandbox.h"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "src/util/subprocess.h"

namespace torchtv {

namespace {

constexpr unsigned kNobody = 65534;

// The tasks (threads included) that user `uid` runs now: RLIMIT_NPROC counts them all.
long tasksOfUser(uid_t uid) {
  namespace fs = std::filesystem;
  long tasks = 0;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator("/proc", ec)) {
    std::ifstream status(entry.path() / "status");
    std::string line;
    bool mine = false;
    while (std::getline(status, line)) {
      if (line.rfind("Uid:", 0) == 0) mine = std::stoul(line.substr(4)) == uid;
      if (mine && line.rfind("Threads:", 0) == 0) tasks += std::stol(line.substr(8));
    }
  }
  return tasks;
}

std::string required(const std::string &program) {
  std::string path = findProgram(program);
  if (path.empty())
    throw std::runtime_error("--sandbox needs " + program + " (Debian: apt-get install " +
                             (program == "bwrap" ? std::string("bubblewrap") : std::string("util-linux")) +
                             "), which is not on PATH");
  return path;
}

}  // namespace

std::vector<std::string> sandboxedArgv(const std::vector<std::string> &argv, const Sandbox &sandbox,
                                       const std::string &writableDir) {
  const bool root = geteuid() == 0;
  const long nproc = sandbox.processes + (root ? 0 : tasksOfUser(getuid()));
  const auto bytes = static_cast<unsigned long long>(std::llround(sandbox.memoryGiB * 1024 * 1024 * 1024));
  std::vector<std::string> out = {required("prlimit"), fmt::format("--nproc={}", nproc),
                                  fmt::format("--as={}", bytes), "--", required("bwrap")};
  // As root bwrap needs no user namespace; as another user it makes one (--unshare-user).
  for (const char *flag : {"--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
                           "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--dev", "/dev", "--proc",
                           "/proc", "--tmpfs", "/dev/shm", "--setenv", "TMPDIR", "/dev/shm"})
    out.push_back(flag);
  if (!root) out.push_back("--unshare-user");
  if (!writableDir.empty()) {
    std::string dir = std::filesystem::absolute(writableDir).string();
    if (root && chown(dir.c_str(), kNobody, kNobody) != 0)
      throw std::runtime_error("--sandbox: cannot hand " + dir + " to the sandbox's user");
    out.insert(out.end(), {"--bind", dir, dir});
  }
  if (root)  // Note [The capture sandbox]: root is not bound by RLIMIT_NPROC
    out.insert(out.end(), {required("setpriv"), fmt::format("--reuid={}", kNobody), fmt::format("--regid={}", kNobody),
                           "--clear-groups", "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search",
                           "--bounding-set=-all,+dac_read_search"});
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::string sandboxLimitsText(const Sandbox &sandbox) {
  return fmt::format(
      "the capture ran under --sandbox: no network, nothing written outside its own output, at most {} more "
      "processes, {:g} GiB of memory (Note [The capture sandbox])",
      sandbox.processes, sandbox.memoryGiB);
}

}  // namespace torchtv
