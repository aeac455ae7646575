// A progress line on stderr for one long check: stage, outputs decided, time.
//
// Note [Progress line]
// Only on a terminal (isatty(stderr)), and only once the check has run a
// second: a log file or a CI job gets no carriage returns, a quick check no
// flicker. The line is redrawn in place by a ticker thread and erased before
// the result is printed.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace torchtv::cli {

class ProgressLine {
public:
  // enabled: the caller's choice (not --quiet); the line still needs a terminal.
  ProgressLine(bool enabled, std::string stage);
  ~ProgressLine();  // erases the line
  ProgressLine(const ProgressLine &) = delete;
  ProgressLine &operator=(const ProgressLine &) = delete;

  void update(const std::string &stage, size_t decided, size_t total);
  void stop();
  // Where the check is, for a reason that names it: "while proving (3 of 7
  // outputs decided)". Kept whether or not the line is drawn.
  std::string where();

private:
  void draw();

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false, drawn_ = false;
  std::string stage_;
  size_t decided_ = 0, total_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::thread thread_;
};

}  // namespace torchtv::cli
