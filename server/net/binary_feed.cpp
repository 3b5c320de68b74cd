#include "net/binary_feed.hpp"

#include <algorithm>

#include "sim/world.hpp"

namespace herd::net {

void BinaryViewer::on_ack(std::uint64_t tick) {
  if (acked_ && *acked_ >= tick) return;
  const bool sent = std::any_of(sent_.begin(), sent_.end(), [&](const Sent& s) { return s.tick == tick; });
  if (sent) acked_ = tick;
}

bool BinaryViewer::take_free_ack() {
  if (acks_ >= frames_ + kFreeAcks) return false;
  ++acks_;
  return true;
}

void BinaryViewer::reset() {
  acked_.reset();
  sent_.clear();
  keyframe_requested_ = false;
}

void BinaryFeed::begin(const sim::World& world, std::string side) {
  begin(protocol::quantise(world, current()), std::move(side));
}

void BinaryFeed::begin(protocol::QuantState state, std::string side) {
  if (!history_.empty() && history_.back().state->tick >= state.tick) history_.clear();  // time went back
  history_.push_back({std::make_shared<const protocol::QuantState>(std::move(state)), nullptr});
  if (history_.size() > kHistory) history_.pop_front();
  side_ = std::move(side);
  shared_.clear();
  caches_.clear();
}

const protocol::DeltaCache* BinaryFeed::cache_for(const Entry& now, const Entry& base) {
  Cache& c = caches_[base.state->tick];
  if (++c.uses < 2) return nullptr;  // one frame on this baseline: writing it directly is as cheap
  if (!c.cache) {
    c.cache = std::make_unique<protocol::DeltaCache>();
    c.cache->build(*base.state, *now.state);
  }
  return c.cache.get();
}

void BinaryFeed::clear() {
  history_.clear();
  shared_.clear();
  caches_.clear();
}

const BinaryFeed::Entry* BinaryFeed::find(std::uint64_t tick) const {
  for (const Entry& e : history_)
    if (e.state->tick == tick) return &e;
  return nullptr;
}

const protocol::ViewGrid& BinaryFeed::grid(const Entry& e) const {
  if (!e.grid) {
    e.grid = std::make_unique<protocol::ViewGrid>();
    e.grid->rebuild(*e.state);
  }
  return *e.grid;
}

SharedBytes BinaryFeed::frame_for(BinaryViewer& v) {
  const Entry& now = history_.back();
  // The baseline: the newest acknowledged frame still in the history, with the viewport it had.
  const Entry* base = nullptr;
  BinaryViewer::Sent* base_sent = nullptr;
  if (v.acked_ && !v.keyframe_requested_) {
    for (BinaryViewer::Sent& s : v.sent_)
      if (s.tick == *v.acked_) base_sent = &s;
    if (base_sent) base = find(*v.acked_);
  }
  v.keyframe_requested_ = false;
  ++v.frames_;
  SharedBytes frame = encode_for(v, now, base, base_sent);
  // Remembered after encoding: the baseline's record may be the oldest, which this evicts.
  v.sent_.push_back({now.state->tick, v.view_, {}});
  if (v.view_) v.sent_.back().selection = current_sel_;
  if (v.sent_.size() > BinaryViewer::kSentRecords) v.sent_.pop_front();
  if (v.sent_.size() > BinaryViewer::kKeptSelections) {
    auto& old = v.sent_[v.sent_.size() - 1 - BinaryViewer::kKeptSelections].selection;
    std::vector<std::uint32_t>().swap(old);
  }
  return frame;
}

SharedBytes BinaryFeed::encode_for(const BinaryViewer& v, const Entry& now, const Entry* base,
                                   const BinaryViewer::Sent* base_sent) {
  const bool unfiltered = !v.view_ && (!base || !base_sent->view);
  std::optional<std::uint64_t> key;
  if (base) key = base->state->tick;
  if (unfiltered) {
    if (auto it = shared_.find(key); it != shared_.end()) {
      ++stats_.shared;
      return it->second;
    }
  }
  protocol::AgentSet current{now.state.get(), nullptr};
  if (v.view_) {
    grid(now).select(*now.state, *v.view_, current_sel_);
    current.subset = &current_sel_;
  }
  std::optional<protocol::AgentSet> baseline;
  if (base) {
    baseline = protocol::AgentSet{base->state.get(), nullptr};
    if (base_sent->view) {
      // The agents the session was sent then: remembered for recent frames, else found again.
      if (!base_sent->selection.empty() || base->state->agents.empty()) {
        baseline->subset = &base_sent->selection;
      } else {
        grid(*base).select(*base->state, *base_sent->view, baseline_sel_);
        baseline->subset = &baseline_sel_;
      }
    }
  }
  const protocol::DeltaCache* cache = base ? cache_for(now, *base) : nullptr;
  auto frame = std::make_shared<const std::string>(protocol::encode_binary(current, baseline, v.view_.has_value(), side_, cache));
  (base ? stats_.deltas : stats_.keyframes)++;
  stats_.bytes_encoded += frame->size();
  if (unfiltered) shared_[key] = frame;
  return frame;
}

}  // namespace herd::net
