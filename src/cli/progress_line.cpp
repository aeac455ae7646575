#include "src/cli/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace torchtv::cli {

ProgressLine::ProgressLine(bool enabled, std::string stage) : stage_(std::move(stage)) {
  if (!enabled || !::isatty(STDERR_FILENO)) return;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_for(lock, std::chrono::seconds(1), [this] { return stopped_; })) return;
    while (!stopped_) {
      draw();
      wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopped_; });
    }
  });
}

ProgressLine::~ProgressLine() { stop(); }

void ProgressLine::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    if (drawn_) std::fprintf(stderr, "\r\033[K"), std::fflush(stderr);
  }
  wake_.notify_all();
  if (thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void ProgressLine::update(const std::string &stage, size_t decided, size_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  stage_ = stage, decided_ = decided, total_ = total;
}

std::string ProgressLine::where() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string out = "while " + stage_;
  if (total_) out += " (" + std::to_string(decided_) + " of " + std::to_string(total_) + " outputs decided)";
  return out;
}

// Called with mutex_ held.
void ProgressLine::draw() {
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (total_) std::fprintf(stderr, "\r\033[Ktorchtv: %s, outputs decided %zu/%zu, %.1f s", stage_.c_str(), decided_, total_, seconds);
  else std::fprintf(stderr, "\r\033[Ktorchtv: %s, %.1f s", stage_.c_str(), seconds);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace torchtv::cli
