#include "src/cli/watchdog.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace torchtv::cli {

Watchdog::Watchdog(double seconds, std::function<int()> onExpiry) {
  if (seconds <= 0)
    return;
  auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds + kGraceSeconds));
  thread_ = std::thread([this, deadline, onExpiry = std::move(onExpiry)] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (done_.wait_until(lock, deadline, [this] { return disarmed_; }))
      return;
    int code = onExpiry();
    std::fflush(nullptr);
    _exit(code);
  });
}

Watchdog::~Watchdog() {
  if (!thread_.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    disarmed_ = true;
  }
  done_.notify_all();
  thread_.join();
}

} // namespace torchtv::cli
