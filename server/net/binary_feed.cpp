#include "net/binary_feed.hpp"

#include <algorithm>
#include <utility>

#include "publish/world_messages.hpp"

namespace herd::net {

void BinaryViewer::on_ack(std::uint64_t tick) {
  if (acked_ && *acked_ >= tick) return;
  const auto sent =
      std::find_if(sent_.begin(), sent_.end(), [&](const Sent& s) { return s.tick == tick; });
  if (sent == sent_.end()) return;
  acked_ = tick;
  acked_sequence_ = sent->sequence;
}

void ViewerInbox::ack(std::uint64_t tick) {
  const std::lock_guard lock(mutex_);
  if (acks_.size() >= kMaxAcks) acks_.erase(acks_.begin());
  acks_.push_back(tick);
}

void ViewerInbox::request_keyframe() {
  const std::lock_guard lock(mutex_);
  keyframe_ = true;
  acks_.clear();
}

void ViewerInbox::set_view(std::optional<protocol::Viewport> view) {
  const std::lock_guard lock(mutex_);
  view_ = view;
}

void ViewerInbox::set_scale(std::uint8_t scale) {
  const std::lock_guard lock(mutex_);
  scale_ = scale;
}

void ViewerInbox::drain_into(BinaryViewer& viewer) {
  bool keyframe = false;
  std::optional<std::optional<protocol::Viewport>> view;
  std::optional<std::uint8_t> scale;
  {
    const std::lock_guard lock(mutex_);
    keyframe = std::exchange(keyframe_, false);
    view = std::exchange(view_, std::nullopt);
    scale = std::exchange(scale_, std::nullopt);
    spare_.swap(acks_);
  }
  if (scale) viewer.set_scale(*scale);
  // A keyframe request forgets the frames sent, so acks that came after it are ignored, as they
  // would have been on arrival.
  if (keyframe) viewer.request_keyframe();
  for (const std::uint64_t tick : spare_) viewer.on_ack(tick);
  spare_.clear();
  if (view) viewer.set_view(*view);
}

void ViewerInbox::clear() {
  const std::lock_guard lock(mutex_);
  keyframe_ = false;
  view_.reset();
  acks_.clear();
}

bool BinaryViewer::waiting_for_acks(std::uint64_t now) const {
  if (!acked_ || keyframe_requested_ || sent_.empty() || sent_.back().tick <= *acked_) return false;
  return now - acked_sequence_ > kMaxAckAge;
}

void BinaryViewer::reset() {
  acked_.reset();
  sent_.clear();
  keyframe_requested_ = false;
}

void BinaryFeed::begin(const sim::World& world, std::string side, std::uint64_t serial) {
  protocol::QuantState state = publish::quantise(world, current());
  state.serial = serial;
  begin(std::move(state), std::move(side));
}

void BinaryFeed::begin(protocol::QuantState state, std::string side) {
  begin(std::make_shared<const protocol::QuantState>(std::move(state)), std::move(side));
}

void BinaryFeed::begin(std::shared_ptr<const protocol::QuantState> state, std::string side) {
  if (!history_.empty() && history_.back().state->tick >= state->tick)
    history_.clear();  // time went back
  history_.push_back({std::move(state), nullptr});
  ++sequence_;
  if (history_.size() > kHistory) history_.pop_front();
  side_ = std::move(side);
  layer_side_.clear();
  seen_.clear();
  team_sides_.clear();
  shared_.clear();
  shared_arena_.release();
  caches_.clear();
}

void BinaryFeed::select(const std::optional<protocol::Viewport>& view, std::uint8_t team,
                        std::vector<std::uint32_t>& out) const {
  const Entry& now = history_.back();
  out.clear();
  if (view) now.grid->select(*now.state, *view, out);
  if (team == 0) return;
  // Not told who sees what: a team's frame carries nothing rather than what it may not see.
  if (seen_.size() != now.state->agents.size()) return out.clear();
  const std::uint64_t bit = std::uint64_t{1} << team;
  if (view) {
    std::erase_if(out, [&](std::uint32_t i) { return (seen_[i] & bit) == 0; });
    return;
  }
  for (std::uint32_t i = 0; i < seen_.size(); ++i)
    if (seen_[i] & bit) out.push_back(i);
}

const protocol::DeltaCache* BinaryFeed::cache_for(const Entry& now, const Entry& base,
                                                  std::uint8_t scale) {
  Cache& c = caches_[{base.state->tick, scale}];
  if (++c.uses < 2) return nullptr;  // one frame on this baseline: writing it directly is as cheap
  if (!c.cache) {
    c.cache = std::make_unique<protocol::DeltaCache>();
    c.cache->build(at_scale(base, scale), at_scale(now, scale));
  }
  return c.cache.get();
}

void BinaryFeed::clear() {
  history_.clear();
  seen_.clear();
  team_sides_.clear();
  shared_.clear();
  shared_arena_.release();
  caches_.clear();
}

const BinaryFeed::Entry* BinaryFeed::find(std::uint64_t tick) const {
  for (const Entry& e : history_)
    if (e.state->tick == tick) return &e;
  return nullptr;
}

const protocol::QuantState& BinaryFeed::at_scale(const Entry& e, std::uint8_t scale) {
  if (scale >= e.state->scale) return *e.state;
  auto& coarse = e.coarse[scale];
  if (!coarse)
    coarse = std::make_shared<const protocol::QuantState>(protocol::coarsen(*e.state, scale));
  return *coarse;
}

const protocol::ViewGrid& BinaryFeed::grid(const Entry& e) const {
  if (!e.grid) {
    e.grid = std::make_unique<protocol::ViewGrid>();
    e.grid->rebuild(*e.state);
  }
  return *e.grid;
}

SharedBytes BinaryFeed::frame_for(BinaryViewer& v) {
  BinaryViewer* one[] = {&v};
  std::vector<SharedBytes> out;
  frames_for(one, out, nullptr);
  return out.front();
}

// Three steps: decide each frame and build what frames share (grids, change records) on this
// thread; select and encode the frames, on the executor's workers when there is one (each reads
// shared state and writes only its own job); then hand them out and remember what was sent.
void BinaryFeed::frames_for(std::span<BinaryViewer* const> viewers, std::vector<SharedBytes>& out,
                            sim::Executor* exec) {
  const Entry& now = history_.back();
  std::vector<Job> jobs(viewers.size());
  std::pmr::monotonic_buffer_resource batch_arena;  // the batch's own map nodes, freed at once
  std::pmr::map<SharedKey, std::size_t> first_of_key(&batch_arena);  // shareable frames encoded
  std::vector<std::size_t> to_encode;
  for (std::size_t j = 0; j < viewers.size(); ++j) {
    BinaryViewer& v = *viewers[j];
    Job& job = jobs[j];
    job.viewer = &v;
    if (v.waiting_for_acks(sequence_)) {
      job.held = true;
      ++stats_.held;
      continue;
    }
    // The baseline: the newest acknowledged frame still in the history, with the viewport it had.
    if (v.acked_ && !v.keyframe_requested_) {
      for (BinaryViewer::Sent& s : v.sent_)
        if (s.tick == *v.acked_) job.base_sent = &s;
      // A frame of another scale is no baseline: the session changed its quantum since.
      if (job.base_sent && job.base_sent->scale == v.scale_) job.base = find(*v.acked_);
      if (!job.base) job.base_sent = nullptr;
    }
    v.keyframe_requested_ = false;
    job.view = v.view_;
    job.team = v.team_;
    job.scale = v.scale_;
    if (v.selects())
      job.current_sel = std::move(v.spare_);  // its capacity: no allocation in the steady state
    // Shared: a frame on the same baseline (seen through the same viewport), of the same
    // viewport, with the same side section (the snapshot's, or the one with the layers).
    if (v.side_.empty()) {
      auto corners = [](const std::optional<protocol::Viewport>& view) {
        return view ? std::optional(std::array{view->x0, view->y0, view->x1, view->y1})
                    : std::nullopt;
      };
      SharedKey key{std::nullopt,     v.layers_ && !layer_side_.empty() && v.team_ == 0,
                    v.team_,          v.scale_,
                    corners(v.view_), {}};
      if (job.base) {
        key.base = job.base->state->tick;
        key.base_view = corners(job.base_sent->view);
      }
      if (auto it = shared_.find(key); it != shared_.end()) {
        job.frame = it->second.frame;
        if (v.selects()) {
          // Kept with the frame when it had sharers in its batch, else found again.
          if (it->second.has_selection) {
            job.current_sel.assign(it->second.selection.begin(), it->second.selection.end());
          } else {
            if (job.view) grid(now);
            select(job.view, job.team, job.current_sel);
          }
        }
        ++stats_.shared;
        continue;
      }
      if (auto it = first_of_key.find(key); it != first_of_key.end()) {
        job.share_from = it->second;
        jobs[it->second].shared_in_batch = true;
        ++stats_.shared;
        continue;
      }
      first_of_key[key] = j;
      job.shared_key = key;
      job.store_shared = true;
    }
    if (v.view_) grid(now);  // built here: the workers only read it
    if (job.base && job.team == 0 && job.base_sent->view && job.base_sent->selection.empty() &&
        !job.base->state->agents.empty())
      grid(*job.base);
    if (job.base) {
      job.cache = cache_for(now, *job.base, job.scale);
      at_scale(*job.base, job.scale);
    }
    at_scale(now, job.scale);  // made here: the workers only read them
    to_encode.push_back(j);
  }
  auto encode = [&](std::size_t begin, std::size_t end, std::size_t) {
    for (std::size_t t = begin; t < end; ++t) encode_job(now, jobs[to_encode[t]]);
  };
  if (exec && exec->workers() > 1 && to_encode.size() > 1)
    exec->parallel_for(to_encode.size(), encode);
  else
    encode(0, to_encode.size(), 0);
  out.clear();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Job& job = jobs[j];
    if (job.held) {
      out.push_back(nullptr);
      continue;
    }
    if (job.share_from != kNoShare) {
      // The first job's selection was kept with its frame (and then given to its session).
      const Shared& first = shared_[jobs[job.share_from].shared_key];
      job.frame = first.frame;
      if (job.selects()) job.current_sel.assign(first.selection.begin(), first.selection.end());
    } else if (job.encoded) {
      (job.base ? stats_.deltas : stats_.keyframes)++;
      stats_.bytes_encoded += job.frame->size();
      if (job.store_shared) {
        // A viewport frame's agents are copied only for the jobs of this batch that share it: a
        // viewer of a later batch that does finds them again (most viewports are a viewer's own).
        Shared& kept = shared_[job.shared_key];
        kept.frame = job.frame;
        kept.has_selection = !job.selects() || job.shared_in_batch;
        if (job.selects() && job.shared_in_batch) kept.selection = job.current_sel;
      }
    }
    BinaryViewer& v = *job.viewer;
    // Remembered after encoding: the baseline's record may be the oldest, which this evicts.
    v.sent_.push_back({now.state->tick, sequence_, job.view, job.scale, {}});
    if (job.selects()) v.sent_.back().selection = std::move(job.current_sel);
    if (v.sent_.size() > BinaryViewer::kSentRecords) v.sent_.pop_front();
    if (v.sent_.size() > BinaryViewer::kKeptSelections && job.team == 0) {
      auto& old = v.sent_[v.sent_.size() - 1 - BinaryViewer::kKeptSelections].selection;
      if (old.capacity() > v.spare_.capacity()) v.spare_ = std::move(old);
      std::vector<std::uint32_t>().swap(old);
    }
    out.push_back(job.frame);  // copied: a later job may share it
  }
}

void BinaryFeed::encode_job(const Entry& now, Job& job) const {
  protocol::AgentSet current{&at_scale(now, job.scale), nullptr};
  if (job.selects()) {
    select(job.view, job.team, job.current_sel);
    current.subset = &job.current_sel;
  }
  std::optional<protocol::AgentSet> baseline;
  if (job.base) {
    baseline = protocol::AgentSet{&at_scale(*job.base, job.scale), nullptr};
    if (job.base_sent->view || job.team) {
      // The agents the session was sent then: remembered for recent frames (a team's, for every
      // frame), else found again.
      if (job.team || !job.base_sent->selection.empty() || job.base->state->agents.empty()) {
        baseline->subset = &job.base_sent->selection;
      } else {
        job.base->grid->select(*job.base->state, *job.base_sent->view, job.baseline_sel);
        baseline->subset = &job.baseline_sel;
      }
    }
  }
  const BinaryViewer& v = *job.viewer;
  static const std::string kNone;
  const auto team_side = [&]() -> const std::string& {
    const auto it = team_sides_.find(job.team);
    return it != team_sides_.end() ? it->second : kNone;
  };
  const std::string& side = !v.side_.empty()                    ? v.side_
                            : job.team                          ? team_side()
                            : v.layers_ && !layer_side_.empty() ? layer_side_
                                                                : side_;
  job.frame = std::make_shared<const std::string>(
      protocol::encode_binary(current, baseline, job.selects(), side, job.cache));
  job.encoded = true;
}

}  // namespace herd::net
