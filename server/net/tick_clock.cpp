#include "net/tick_clock.hpp"

#include <cassert>
#include <cmath>

namespace herd::net {

TickSchedule::TickSchedule(double tick_rate, int max_catchup)
    : period_ns_(1e9 / tick_rate), max_catchup_(max_catchup) {
  assert(tick_rate > 0 && max_catchup >= 1);
}

int TickSchedule::due(Duration elapsed) {
  // Ticks whose deadline has passed: tick k (1-based) is due at k * period.
  const auto reached =
      static_cast<std::uint64_t>(std::floor(static_cast<double>(elapsed.count()) / period_ns_));
  const std::uint64_t scheduled = run_ + dropped_;
  if (reached <= scheduled) return 0;
  std::uint64_t n = reached - scheduled;
  if (n > static_cast<std::uint64_t>(max_catchup_)) {
    dropped_ += n - static_cast<std::uint64_t>(max_catchup_);
    ++overruns_;
    n = static_cast<std::uint64_t>(max_catchup_);
  }
  if (n > 1) ++late_;
  run_ += n;
  return static_cast<int>(n);
}

TickSchedule::Duration TickSchedule::next_deadline() const {
  return Duration(
      static_cast<std::int64_t>(std::ceil(static_cast<double>(run_ + dropped_ + 1) * period_ns_)));
}

std::uint64_t SnapshotCadence::index(std::uint64_t tick) const {
  // The epsilon keeps exact ratios exact: 3 * (20/60) must count as 1, not 0.999...
  return static_cast<std::uint64_t>(std::floor(static_cast<double>(tick) * ratio_ + 1e-9));
}

}  // namespace herd::net
