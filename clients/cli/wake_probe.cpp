#include "cli/wake_probe.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace herd::cli {

namespace {
constexpr std::uint32_t kCycle = 1u << 18;  // 1 MiB of 32-bit steps
constexpr int kSteps = 4096;
}  // namespace

void WakeProbe::start() {
  if (thread_.joinable()) return;
  if (cycle_.empty()) {
    // One random cycle through every slot (Sattolo's shuffle), so each step is a dependent load
    // from an unpredictable place.
    std::vector<std::uint32_t> order(kCycle);
    std::iota(order.begin(), order.end(), 0u);
    std::mt19937 rng(11);
    for (std::uint32_t i = kCycle - 1; i > 0; --i) std::swap(order[i], order[rng() % i]);
    cycle_.resize(kCycle);
    for (std::uint32_t i = 0; i < kCycle; ++i) cycle_[order[i]] = order[(i + 1) % kCycle];
  }
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
  stats_.max_late_ms =
      std::max(stats_.max_late_ms, std::chrono::duration<double, std::milli>(late).count());
}

WakeProbe::Clock::duration WakeProbe::work() {
  if (cycle_.empty()) return Clock::duration::zero();
  const auto t0 = Clock::now();
  std::uint32_t at = at_;
  for (int k = 0; k < kSteps; ++k) at = cycle_[at];
  at_ = at;  // kept: the walk cannot be optimised away
  return Clock::now() - t0;
}

WakeProbe::Stats WakeProbe::stats() const {
  const std::lock_guard lock(mutex_);
  Stats out = stats_;
  out.work_runs = work_us_.size();
  if (!work_us_.empty()) {
    std::vector<double> v = work_us_;
    std::sort(v.begin(), v.end());
    out.work_us_p50 = v[v.size() / 2];
    out.work_us_p90 = v[std::min(v.size() - 1, v.size() * 9 / 10)];
  }
  return out;
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
    if (wakes_++ % work_every_ == 0) {
      const double us = std::chrono::duration<double, std::micro>(work()).count();
      const std::lock_guard work_lock(mutex_);
      work_us_.push_back(us);
    }
    deadline = late > threshold_ ? now + period_ : deadline + period_;
    lock.lock();
  }
}

}  // namespace herd::cli
