// herd::net::SpectatorDelay — the spectators' broadcast delay (as SourceTV's tv_delay): the
// whole world's snapshots (the JSON text, and the quantised state with its side section for
// binary frames) kept for `delay` seconds of world time, so that a spectator, who sees every
// team, sees them too late to help one. Plain C++.
//
// Bounded: the snapshots kept are at most kMaxBytes. A world whose snapshots over the delay would
// be more is kept thinned (a snapshot is kept only when enough world time has passed since the last
// one kept): its spectators get fewer snapshots a second, never a shorter delay.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "protocol/snapshot_binary.hpp"

namespace herd::net {

class SpectatorDelay {
 public:
  using Text = std::shared_ptr<const std::string>;
  static constexpr std::size_t kMaxBytes = std::size_t{256} << 20;
  // One snapshot as the spectators are sent it: JSON, or binary frames of `state` with `side`;
  // auto_binary: the format `auto` spectators take it in, chosen from its own world when it was
  // kept (it is kept in that format), not from the world when it is handed out.
  struct Snapshot {
    Text json;
    std::shared_ptr<const protocol::QuantState> state;
    std::string side;
    bool auto_binary = false;
    std::size_t bytes() const {
      return (json ? json->size() : 0) + side.size() +
             (state ? state->agents.size() * sizeof(protocol::QuantAgent) : 0);
    }
    explicit operator bool() const { return json || state; }
  };

  explicit SpectatorDelay(double delay_seconds) : delay_(delay_seconds) {}
  double delay() const { return delay_; }

  // A snapshot of world time `time`.
  void push(double time, Snapshot snapshot) {
    if (!kept_.empty() && time < kept_.back().time) clear();  // a new world: time began again
    const std::size_t size = std::max<std::size_t>(1, snapshot.bytes());
    if (!kept_.empty() && bytes_ + size > kMaxBytes / 2) {
      // Past half the cap, keep at most as many as fit in the other half across the delay: the
      // snapshots kept before thinning began age out as these come.
      const double snapshots = static_cast<double>(kMaxBytes / 2) / static_cast<double>(size);
      if (time - kept_.back().time < delay_ / snapshots) return;
    }
    bytes_ += size;
    if (snapshot.state) last_state_ = snapshot.state;
    kept_.push_back({time, size, std::move(snapshot)});
  }
  // The state of the newest snapshot kept (the quantisation's previous state: the spectators'
  // frames' hysteresis is against what they were sent), or null.
  const protocol::QuantState* last_state() const { return last_state_.get(); }
  // The newest snapshot at least `delay` older than world time `now` not handed out before, or
  // null. The older ones go.
  Snapshot due(double now) {
    Snapshot out;
    while (!kept_.empty() && kept_.front().time <= now - delay_ + 1e-9) {
      out = std::move(kept_.front().snapshot);
      bytes_ -= kept_.front().bytes;
      kept_.pop_front();
    }
    return out;
  }
  void clear() {
    kept_.clear();
    last_state_.reset();
    bytes_ = 0;
  }
  std::size_t bytes() const { return bytes_; }

 private:
  struct Entry {
    double time;
    std::size_t bytes;
    Snapshot snapshot;
  };
  double delay_;
  std::deque<Entry> kept_;
  std::shared_ptr<const protocol::QuantState> last_state_;
  std::size_t bytes_ = 0;
};

}  // namespace herd::net
