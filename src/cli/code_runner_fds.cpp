#include "src/cli/code_runner_fds.h"

#include <unistd.h>

#include <memory>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "src/util/subprocess.h"

namespace torchtv::cli {

CodeRunner codeRunnerOverFds(const std::string &fds) {
  int readFd = -1, writeFd = -1;
  size_t comma = fds.find(',');
  try {
    if (comma == std::string::npos) throw std::invalid_argument(fds);
    readFd = std::stoi(fds.substr(0, comma));
    writeFd = std::stoi(fds.substr(comma + 1));
  } catch (const std::exception &) {
    throw CLI::ValidationError("--code-runner-fds", "expects R,W: two file descriptors, got '" + fds + "'");
  }
  if (readFd < 0 || writeFd < 0) throw CLI::ValidationError("--code-runner-fds", "file descriptors are >= 0");
  // One request per check: a second call finds the pipes closed and fails.
  auto used = std::make_shared<bool>(false);
  return [readFd, writeFd, used](const std::string &request) -> std::string {
    if (*used) throw std::runtime_error("the code runner serves one request");
    *used = true;
    bool written = writeAll(writeFd, request);
    ::close(writeFd);
    if (!written) throw std::runtime_error("cannot write the request to the code runner");
    std::string reply;
    char buf[65536];
    for (ssize_t n; (n = ::read(readFd, buf, sizeof buf)) != 0;) {
      if (n < 0) throw std::runtime_error("cannot read the code runner's reply");
      reply.append(buf, static_cast<size_t>(n));
    }
    ::close(readFd);
    return reply;
  };
}

}  // namespace torchtv::cli
