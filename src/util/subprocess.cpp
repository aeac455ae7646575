#include "src/util/subprocess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace torchtv {

namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  void closeEnd(int i) {
    if (fd[i] >= 0) close(fd[i]);
    fd[i] = -1;
  }
};

}  // namespace

ProcessResult runProcess(const std::vector<std::string> &argv, const ProcessOptions &options) {
  if (argv.empty()) throw std::runtime_error("runProcess: empty command");
  Pipe out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);

  std::vector<char *> args;
  for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> envStrings;
  for (char **e = environ; *e; ++e) envStrings.emplace_back(*e);
  envStrings.insert(envStrings.end(), options.env.begin(), options.env.end());
  std::vector<char *> envp;
  for (std::string &e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot run '" + argv[0] + "': " + std::strerror(rc));
  out.closeEnd(1);
  err.closeEnd(1);

  ProcessResult result;
  auto start = std::chrono::steady_clock::now();
  pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
  std::string *sinks[2] = {&result.out, &result.err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    int waitMs = -1;
    if (options.timeoutSeconds > 0) {
      double left = options.timeoutSeconds -
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (left <= 0) {
        result.timedOut = true;
        kill(pid, SIGKILL);
        break;
      }
      waitMs = static_cast<int>(left * 1000) + 1;
    }
    int n = poll(fds, 2, waitMs);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

std::string describeExit(const ProcessResult &r, const ProcessOptions &options) {
  if (r.timedOut) return "timed out after " + std::to_string(static_cast<int>(options.timeoutSeconds)) + " s";
  if (r.exited) return "exited with " + std::to_string(r.exitCode);
  return "killed by signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) + ")";
}

}  // namespace torchtv
