#include "src/util/subprocess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace torchtv {

namespace {

void closeBoth(int fds[2]) {
  if (fds[0] >= 0) ::close(fds[0]);
  if (fds[1] >= 0) ::close(fds[1]);
}

// Child side of the fork: only async-signal-safe calls from here on.
[[noreturn]] void execChild(int in[2], int out[2], int err[2], char **argv, char **envp, int report) {
  ::dup2(in[0], 0);
  ::dup2(out[1], 1);
  ::dup2(err[1], 2);
  // Its own process group, so that a timeout kills the child's children too.
  ::setpgid(0, 0);
  ::execvpe(argv[0], argv, envp);
  int e = errno;
  ssize_t ignored = ::write(report, &e, sizeof e);
  (void)ignored;
  ::_exit(127);
}

}  // namespace

std::string findProgram(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

ProcessResult runProcess(const std::vector<std::string> &args, const ProcessOptions &options) {
  ProcessResult r;
  if (args.empty()) {
    r.error = "no program given";
    return r;
  }
  std::vector<char *> argv;
  for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<std::string> envStrings;
  for (char **e = environ; *e; ++e) envStrings.push_back(*e);
  for (const std::string &e : options.env) envStrings.push_back(e);
  std::vector<char *> envp;
  for (const std::string &e : envStrings) envp.push_back(const_cast<char *>(e.c_str()));
  envp.push_back(nullptr);

  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, report[2] = {-1, -1};
  if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC) ||
      ::pipe2(report, O_CLOEXEC)) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    closeBoth(in), closeBoth(out), closeBoth(err), closeBoth(report);
    return r;
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    closeBoth(in), closeBoth(out), closeBoth(err), closeBoth(report);
    return r;
  }
  if (pid == 0) execChild(in, out, err, argv.data(), envp.data(), report[1]);
  ::setpgid(pid, pid);  // also from the parent, to win the race with kill()
  ::close(in[0]), ::close(out[1]), ::close(err[1]), ::close(report[1]);

  int execErrno = 0;
  if (::read(report[0], &execErrno, sizeof execErrno) == sizeof execErrno) {
    ::close(report[0]);
    closeBoth(in);  // in[0] already closed above; close(-1) is harmless
    ::close(out[0]), ::close(err[0]);
    ::waitpid(pid, nullptr, 0);
    r.error = "cannot run " + args[0] + ": " + std::strerror(execErrno);
    return r;
  }
  ::close(report[0]);
  r.started = true;

  // Feed stdin and drain stdout/stderr together: a child blocked writing a full
  // pipe while we block writing its stdin would deadlock otherwise.
  ::signal(SIGPIPE, SIG_IGN);
  size_t written = 0;
  int inFd = in[1];
  if (options.stdinText.empty()) ::close(inFd), inFd = -1;
  else ::fcntl(inFd, F_SETFL, O_NONBLOCK);
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long long>(options.timeoutSeconds * 1000));
  int outFd = out[0], errFd = err[0];
  char buf[65536];
  while (outFd >= 0 || errFd >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timedOut = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    pollfd fds[3];
    int n = 0;
    if (outFd >= 0) fds[n++] = {outFd, POLLIN, 0};
    if (errFd >= 0) fds[n++] = {errFd, POLLIN, 0};
    if (inFd >= 0) fds[n++] = {inFd, POLLOUT, 0};
    int ready = ::poll(fds, n, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < n && ready > 0; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == inFd) {
        ssize_t w = ::write(inFd, options.stdinText.data() + written, options.stdinText.size() - written);
        if (w > 0) written += static_cast<size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) written = options.stdinText.size();
        if (written >= options.stdinText.size()) ::close(inFd), inFd = -1;
        continue;
      }
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (fds[i].fd == outFd ? r.out : r.err).append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        ::close(fds[i].fd);
        (fds[i].fd == outFd ? outFd : errFd) = -1;
      }
    }
  }
  if (inFd >= 0) ::close(inFd);
  if (outFd >= 0) ::close(outFd);
  if (errFd >= 0) ::close(errFd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

bool writeAll(int fd, const std::string &text) {
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

ProcessResult runForked(const std::function<void(int fd)> &work, double timeoutSeconds) {
  ProcessResult r;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    r.error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  std::fflush(nullptr);  // or the child's exit would write the parent's buffered output again
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    r.error = std::string("fork: ") + std::strerror(errno);
    closeBoth(fds);
    return r;
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(71);  // the parent died before prctl
    rlimit noCore{0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    ::signal(SIGPIPE, SIG_IGN);
    int code = 0;
    try {
      work(fds[1]);
    } catch (...) {
      code = 70;
    }
    ::close(fds[1]);
    ::_exit(code);
  }
  ::close(fds[1]);
  r.started = true;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(static_cast<long long>(timeoutSeconds * 1000));
  char buf[65536];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timedOut = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    ssize_t got = ::read(fds[0], buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    r.out.append(buf, static_cast<size_t>(got));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

std::string describeExit(const ProcessResult &r, double timeoutSeconds) {
  if (!r.started) return r.error;
  if (r.timedOut) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "timed out after %g s", timeoutSeconds);
    return buf;
  }
  if (r.signal) return "killed by signal " + std::to_string(r.signal) + " (" + ::strsignal(r.signal) + ")";
  return "exit " + std::to_string(r.exitCode);
}

}  // namespace torchtv
