#include "cli/wake_probe.hpp"

#include <algorithm>

namespace herd::cli {

void WakeProbe::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void WakeProbe::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WakeProbe::record(Clock::duration late) {
  const std::lock_guard lock(mutex_);
  ++stats_.wakes;
  if (late > threshold_) ++stats_.late;
  stats_.max_late_ms = std::max(stats_.max_late_ms, std::chrono::duration<double, std::milli>(late).count());
}

WakeProbe::Stats WakeProbe::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

void WakeProbe::loop() {
  auto deadline = Clock::now() + period_;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (wake_.wait_until(lock, deadline, [this] { return stopping_; })) break;
    lock.unlock();
    const auto now = Clock::now();
    const auto late = std::max(now - deadline, Clock::duration::zero());
    record(late);
    deadline = late > threshold_ ? now + period_ : deadline + period_;
    lock.lock();
  }
}

}  // namespace herd::cli
