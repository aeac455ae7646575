// Hard enforcement of `--timeout` for one decision.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace torchtv::cli {

// Note [Watchdog]
// The engine checks its deadline between solver queries, but some stages
// (normalizing a large region, random evaluation of a big graph) run long
// between checks. The watchdog makes `--timeout` a promise: if the decision
// is still running `grace` seconds after the limit, it calls `onExpiry` (which
// prints what the engine had decided by then, the rest `unknown`: Note [Outputs
// decided before the time limit] in src/verify/check.h) and ends the process
// with `_exit`, so no half-finished state is flushed and no stage can turn the
// overrun into a verdict. A decision that finishes in time disarms it.
class Watchdog {
public:
  Watchdog(double seconds, std::function<int()> onExpiry);
  ~Watchdog(); // disarms
  Watchdog(const Watchdog &) = delete;
  Watchdog &operator=(const Watchdog &) = delete;

  // Seconds past the limit the engine gets to notice it by itself: --timeout holds within a
  // second (issue 36).
  static constexpr double kGraceSeconds = 1;

private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool disarmed_ = false;
  std::thread thread_;
};

} // namespace torchtv::cli
