#include "net/outbound.hpp"

namespace herd::net {

bool OutboundLanes::push_control(SharedText msg) {
  if (control_.size() >= control_limit_) return false;
  control_.push_back(std::move(msg));
  return true;
}

bool OutboundLanes::push_snapshot(SharedText frame, bool binary, Clock::time_point now) {
  bool replaced = false;
  if (snapshots_.size() >= kWaiting) {
    snapshots_.pop_front();
    replaced = true;
    if (!behind_since_) behind_since_ = now;
  }
  snapshots_.emplace_back(std::move(frame), binary);
  return replaced;
}

std::optional<OutboundLanes::Message> OutboundLanes::pop() {
  if (!control_.empty()) {
    Message m{std::move(control_.front()), false, false};
    control_.pop_front();
    return m;
  }
  if (!snapshots_.empty()) {
    Message m{std::move(snapshots_.front().first), true, snapshots_.front().second};
    snapshots_.pop_front();
    return m;
  }
  behind_since_.reset();  // both lanes empty: caught up
  return std::nullopt;
}

}  // namespace herd::net
