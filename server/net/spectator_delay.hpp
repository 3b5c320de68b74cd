// herd::net::SpectatorDelay — the spectators' broadcast delay (as SourceTV's tv_delay): the
// whole world's JSON snapshots kept for `delay` seconds of world time, so that a spectator, who
// sees every team, sees them too late to help one. Plain C++.
//
// Bounded: the texts kept are at most kMaxBytes. A world whose snapshots over the delay would be
// more is kept thinned (a snapshot is kept only when enough world time has passed since the last
// one kept): its spectators get fewer snapshots a second, never a shorter delay.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>

namespace herd::net {

class SpectatorDelay {
 public:
  using Text = std::shared_ptr<const std::string>;
  static constexpr std::size_t kMaxBytes = std::size_t{256} << 20;

  explicit SpectatorDelay(double delay_seconds) : delay_(delay_seconds) {}
  double delay() const { return delay_; }

  // A snapshot of world time `time`.
  void push(double time, Text text) {
    if (!kept_.empty() && time < kept_.back().time) clear();  // a new world: time began again
    const std::size_t size = text->size();
    if (!kept_.empty() && bytes_ + size > kMaxBytes / 2) {
      // Keep at most as many as fit in kMaxBytes across the delay.
      const double snapshots = static_cast<double>(kMaxBytes) / static_cast<double>(size);
      if (time - kept_.back().time < delay_ / snapshots) return;
    }
    bytes_ += size;
    kept_.push_back({time, std::move(text)});
  }
  // The newest snapshot at least `delay` older than world time `now` not handed out before, or
  // null. The older ones go.
  Text due(double now) {
    Text out;
    while (!kept_.empty() && kept_.front().time <= now - delay_ + 1e-9) {
      out = std::move(kept_.front().text);
      bytes_ -= out->size();
      kept_.pop_front();
    }
    return out;
  }
  void clear() {
    kept_.clear();
    bytes_ = 0;
  }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Entry {
    double time;
    Text text;
  };
  double delay_;
  std::deque<Entry> kept_;
  std::size_t bytes_ = 0;
};

}  // namespace herd::net
