#include "src/util/atomic_file.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/diagnostic.h"

namespace torchtv {

namespace {

[[noreturn]] void fail(const std::string &path, int err) {
  throw InputError(SourcePos{path}, std::string("cannot write report: ") + std::strerror(err));
}

// 0, or the errno of the write that failed (ENOSPC for a write of 0 bytes).
int writeAll(int fd, const std::string &content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : ENOSPC;
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

void writeFileAtomic(const std::string &path, const std::string &content) {
  // Note [Reports on devices]: a target that is not a regular file
  // (/dev/stdout, /dev/full, a FIFO) is written in place. Renaming a temporary
  // file over it would replace the device node itself: as root, a report to
  // /dev/full became a regular file and the run passed.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail(path, errno);
    int e = writeAll(fd, content);
    if (::close(fd) != 0 && e == 0) e = errno;
    if (e) fail(path, e);
    return;
  }
  // Same folder as the target, so that the rename stays on one file system.
  static std::atomic<unsigned> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, errno);
  if (int e = writeAll(fd, content)) {
    ::close(fd);
    ::unlink(tmp.c_str());
    fail(path, e);
  }
  bool ok = ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    fail(path, e);
  }
}

}  // namespace torchtv
