// herd::net::FrameSteps — which viewers' frames of a snapshot are still to be encoded, handed out
// a step at a time, and which were left when the next snapshot was taken.
//
// A plain container with no sockets or clock, so that its order and counts are tested on their
// own; the hub (hub.cpp) owns one, encodes each step's frames and decides when a snapshot ends.
// Viewers come in the order given, the same every snapshot (each one's frames at a steady point
// in the interval), except that the viewers left without a frame when the last snapshot ended go
// first: the ones a hub too slow for all of them drops are not always the same.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace herd::net {

class FrameSteps {
 public:
  // A snapshot's viewers (their session ids, each once). Any left of the last snapshot must have
  // been ended (end()) before.
  void start(std::vector<std::uint64_t> ids) {
    ids_ = std::move(ids);
    next_ = 0;
    if (!behind_.empty())
      std::stable_partition(ids_.begin(), ids_.end(), [&](std::uint64_t id) {
        return std::binary_search(behind_.begin(), behind_.end(), id);
      });
    behind_.clear();
  }

  // The next step's viewers, at most `max` (> 0); empty when none are left.
  std::span<const std::uint64_t> take(std::size_t max) {
    const std::size_t from = next_;
    next_ = std::min(ids_.size(), next_ + max);
    return std::span<const std::uint64_t>(ids_).subspan(from, next_ - from);
  }

  std::size_t left() const { return ids_.size() - next_; }

  // The snapshot ends with left() viewers not reached; returns how many. `behind`: they go first
  // in the next snapshot (the frame work was too slow for them); else they are forgotten (the
  // world their snapshot showed was replaced).
  std::size_t end(bool behind) {
    const std::size_t n = left();
    behind_.clear();
    if (behind && n > 0) {
      behind_.assign(ids_.begin() + static_cast<std::ptrdiff_t>(next_), ids_.end());
      std::sort(behind_.begin(), behind_.end());
    }
    ids_.clear();
    next_ = 0;
    return n;
  }

 private:
  std::vector<std::uint64_t> ids_;
  std::size_t next_ = 0;
  std::vector<std::uint64_t> behind_;  // sorted
};

}  // namespace herd::net
