#include "net/outbound.hpp"

namespace herd::net {

bool OutboundLanes::push(Control c) {
  const std::size_t size = c.size();
  if (!control_.empty() &&
      (control_.size() >= control_limit_ || control_bytes_ + size > control_bytes_limit_))
    return false;
  control_bytes_ += size;
  control_.push_back(std::move(c));
  return true;
}

bool OutboundLanes::push_control(SharedText msg) { return push({std::move(msg), nullptr, false}); }

bool OutboundLanes::push_welcome(SharedText head, SharedText tail, Clock::time_point now,
                                 bool* replaced) {
  const auto old =
      std::find_if(control_.begin(), control_.end(), [](const Control& c) { return c.welcome; });
  const bool found = old != control_.end();
  if (found) {  // at most one waits: each push replaces the one before
    control_bytes_ -= old->size();
    control_.erase(old);
    if (!behind_since_) behind_since_ = now;
  }
  if (replaced) *replaced = found;
  return push({std::move(head), std::move(tail), true});
}

bool OutboundLanes::push_snapshot(SharedText frame, bool binary, Clock::time_point now,
                                  SharedText tail) {
  bool replaced = false;
  if (snapshots_.size() >= kWaiting) {
    snapshots_.pop_front();
    replaced = true;
    if (!behind_since_) behind_since_ = now;
  }
  snapshots_.push_back({std::move(frame), std::move(tail), binary});
  return replaced;
}

std::optional<OutboundLanes::Message> OutboundLanes::pop() {
  if (!control_.empty()) {
    control_bytes_ -= control_.front().size();
    Message m{std::move(control_.front().head), std::move(control_.front().tail), false, false};
    control_.pop_front();
    return m;
  }
  if (!snapshots_.empty()) {
    Snapshot& s = snapshots_.front();
    const bool splice = s.tail != nullptr;
    Message m{std::move(s.frame), std::move(s.tail), true, s.binary, splice};
    snapshots_.pop_front();
    return m;
  }
  behind_since_.reset();  // both lanes empty: caught up
  return std::nullopt;
}

}  // namespace herd::net
