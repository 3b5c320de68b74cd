// herd::net binary snapshot feed: the server's history of quantised snapshots and the
// choice, per session, of what each binary frame is a delta against.
//
// Plain C++ (no Beast): the hub (hub.cpp) asks for a frame per session; the session writes it.
// A frame is encoded against the newest snapshot the session acknowledged that is still in the
// history (a keyframe when there is none, or when the session asked for one), limited to the
// session's viewport. Frames for sessions with the same baseline and no viewport are encoded once
// and shared, as JSON snapshots are.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "herd/sim/executor.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::sim {
class World;
}  // namespace herd::sim

namespace herd::net {

using SharedBytes = std::shared_ptr<const std::string>;

// One session's side of the feed.
class BinaryViewer {
 public:
  static constexpr std::size_t kSentRecords = 32;    // frames remembered (for their viewport)
  static constexpr std::size_t kKeptSelections = 4;  // newest frames whose agent lists are kept
  // How many snapshots old the newest acknowledged frame may be while frames sent after it are
  // unacknowledged: past that, the session is sent nothing until an ack (or a keyframe request)
  // comes (latest wins). A client that acknowledges but reads slowly is never sent a backlog for
  // the socket buffers to hold: it gets a frame, acknowledges it, gets the next. Half the frames
  // remembered, so the acknowledged one stays a baseline.
  static constexpr std::uint64_t kMaxAckAge = kSentRecords / 2;

  void set_view(std::optional<protocol::Viewport> view) { view_ = view; }
  // The scale of this session's frames from the next one on (positions in 1 / 2^scale unit); a
  // frame of another scale is no baseline for them.
  void set_scale(std::uint8_t scale) { scale_ = scale; }
  // A player's session: its frames carry only the agents team `team` sees (BinaryFeed::set_seen),
  // within its viewport if it has one; 0, the whole world's.
  void set_team(std::uint8_t team) { team_ = team; }
  std::uint8_t team() const { return team_; }
  // The side section of this session's own for the next frame (the snapshot's with the traces
  // of the agents it inspects); empty: the snapshot's. Such a frame is never shared.
  void set_side(std::string side) { side_ = std::move(side); }
  // Whether this session takes the snapshot's layer side section (BinaryFeed::set_layer_side)
  // when it has no side section of its own.
  void set_layers(bool on) { layers_ = on; }
  const std::optional<protocol::Viewport>& view() const { return view_; }
  // The client holds the frame of this tick. Ignored unless this session was sent it, or when a
  // newer tick was acknowledged already.
  void on_ack(std::uint64_t tick);
  // The next frame is a keyframe, and acks of frames sent before it are ignored: the client asks
  // because it lacks a state, and must not be given a delta on one again.
  void request_keyframe() {
    keyframe_requested_ = true;
    acked_.reset();
    sent_.clear();
  }
  // The world was replaced: ticks start again, every baseline is gone.
  void reset();
  // True when frames went out after the newest acknowledged one and that one is more than
  // kMaxAckAge snapshots older than snapshot `now` (BinaryFeed::sequence()), and no keyframe was
  // asked for since. A session that never acknowledged is never held back (it gets keyframes).
  bool waiting_for_acks(std::uint64_t now) const;

 private:
  friend class BinaryFeed;
  struct Sent {
    std::uint64_t tick;
    std::uint64_t sequence;  // the snapshot's number in the feed (BinaryFeed::sequence())
    std::optional<protocol::Viewport> view;
    std::uint8_t scale = protocol::kFinestScale;
    // With a viewport: the agents sent (newest frames only); a team's: the agents sent (every
    // frame: what a team saw cannot be found again from the snapshot).
    std::vector<std::uint32_t> selection;
  };
  bool selects() const { return view_.has_value() || team_ != 0; }
  std::optional<protocol::Viewport> view_;
  std::uint8_t team_ = 0;
  std::uint8_t scale_ = protocol::kFinestScale;
  std::string side_;
  bool layers_ = false;
  std::optional<std::uint64_t> acked_;
  std::uint64_t acked_sequence_ = 0;  // the acknowledged frame's Sent::sequence
  bool keyframe_requested_ = false;
  std::deque<Sent> sent_;
  std::vector<std::uint32_t> spare_;  // a selection no longer kept, reused by the next frame
};

// Acks cost no message budget while there are no more of them than binary frames handed to the
// session plus kFreeAcks (the session's I/O thread keeps it).
class AckBudget {
 public:
  static constexpr std::uint64_t kFreeAcks = 8;
  void on_frame() { ++frames_; }
  bool take() {
    if (acks_ >= frames_ + kFreeAcks) return false;
    ++acks_;
    return true;
  }

 private:
  std::uint64_t frames_ = 0, acks_ = 0;
};

// What a session's client said about its binary feed (acks, keyframe requests, viewports), from
// the session's I/O thread to the tick thread, which applies it to the session's BinaryViewer
// before encoding the next frame. Bounded without losing anything that matters: acks are ignored
// after a keyframe request anyway (it forgets the frames sent), so a request drops the acks before
// it, only the newest kMaxAcks acks are kept (the newest valid one wins), and only the last
// viewport.
class ViewerInbox {
 public:
  static constexpr std::size_t kMaxAcks = BinaryViewer::kSentRecords;
  void ack(std::uint64_t tick);
  void request_keyframe();
  void set_view(std::optional<protocol::Viewport> view);
  void set_scale(std::uint8_t scale);
  // Applies what arrived since the last call and forgets it.
  void drain_into(BinaryViewer& viewer);
  // Forgets the acks, keyframe request and viewport not yet applied (a new world); a scale asked
  // for stays, as the session's setting.
  void clear();

 private:
  std::mutex mutex_;
  bool keyframe_ = false;
  std::optional<std::optional<protocol::Viewport>> view_;  // set: a viewport message came
  std::optional<std::uint8_t> scale_;                      // set: a quantum was asked for
  std::vector<std::uint64_t> acks_, spare_;
};

struct BinaryFeedStats {
  std::uint64_t keyframes = 0, deltas = 0, shared = 0;  // frames encoded, and frames reused
  std::uint64_t held = 0;  // frames not made: the session was waiting_for_acks()
  std::uint64_t bytes_encoded = 0;
};

class BinaryFeed {
 public:
  static constexpr std::size_t kHistory = 32;  // snapshots kept as baselines (1.6 s at 20 Hz)

  // A new snapshot of the world; side is the JSON side section (empty for none); serial the
  // server's count of snapshots made, written in every frame's header (0: none).
  void begin(const sim::World& world, std::string side, std::uint64_t serial = 0);
  // The same from a quantised state (tests, the benchmark, the spectators' delayed snapshots).
  void begin(protocol::QuantState state, std::string side);
  void begin(std::shared_ptr<const protocol::QuantState> state, std::string side);
  // The side section of this snapshot's frames for sessions that take the layers
  // (BinaryViewer::set_layers): the snapshot's with the density layer. Empty (as begin() leaves
  // it): those sessions get the snapshot's. Frames with it are shared among those sessions only.
  void set_layer_side(std::string side) { layer_side_ = std::move(side); }
  // Which teams see each agent of this snapshot (World::seen_by: bit t, team t), for the frames of
  // players' sessions (BinaryViewer::set_team). Without it, a player's frame carries no agent.
  void set_seen(std::vector<std::uint64_t> seen) { seen_ = std::move(seen); }
  // The side section of team `team`'s frames of this snapshot (what its players may know:
  // publish::View); without one, a player's frames have none.
  void set_team_side(std::uint8_t team, std::string side) { team_sides_[team] = std::move(side); }
  // The frame for this session for the current snapshot; records it as sent. Null when the
  // session is held back (BinaryViewer::waiting_for_acks): nothing is sent, nothing recorded.
  SharedBytes frame_for(BinaryViewer& viewer);
  // The frames of several sessions (out[i] for viewers[i], null for one held back), encoded on
  // the executor's workers when there is one (the sim's thread pool, between ticks).
  void frames_for(std::span<BinaryViewer* const> viewers, std::vector<SharedBytes>& out,
                  sim::Executor* exec);
  // The world was replaced: the history goes.
  void clear();
  bool empty() const { return history_.empty(); }
  // The number of the current snapshot: how many begin() calls there have been.
  std::uint64_t sequence() const { return sequence_; }
  const protocol::QuantState* current() const {
    return history_.empty() ? nullptr : history_.back().state.get();
  }
  const BinaryFeedStats& stats() const { return stats_; }

 private:
  struct Entry {
    std::shared_ptr<const protocol::QuantState> state;  // at kFinestScale
    mutable std::unique_ptr<protocol::ViewGrid> grid;   // built the first time a viewport needs it
    // The state at each coarser scale, made the first time a frame needs it (protocol::coarsen):
    // agents at the same indices as in `state`, so a viewport's selection serves every scale.
    mutable std::array<std::shared_ptr<const protocol::QuantState>, protocol::kFinestScale> coarse;
  };
  const Entry* find(std::uint64_t tick) const;
  const protocol::ViewGrid& grid(const Entry& e) const;
  // The entry's state at `scale`, made here when first asked for (on the tick thread: the workers
  // that encode only read it).
  static const protocol::QuantState& at_scale(const Entry& e, std::uint8_t scale);
  // The agents of the current snapshot a frame through `view` for `team` carries (indices,
  // ascending): the viewport's (BinaryFeed::grid, built) of those the team sees.
  void select(const std::optional<protocol::Viewport>& view, std::uint8_t team,
              std::vector<std::uint32_t>& out) const;
  // One session's frame of this snapshot, from deciding it to handing it out.
  static constexpr std::size_t kNoShare = ~std::size_t{0};
  // Frames are shared by baseline (none: a keyframe), side section (the snapshot's, or the one
  // with the layers), team, viewport and the baseline's viewport: viewers that look at the same
  // place from the same frame get one frame.
  struct SharedKey {
    std::optional<std::uint64_t> base;
    bool layers = false;
    std::uint8_t team = 0;
    std::uint8_t scale = protocol::kFinestScale;
    std::optional<std::array<double, 4>> view, base_view;
    auto operator<=>(const SharedKey&) const = default;
  };
  struct Shared {
    SharedBytes frame;
    std::vector<std::uint32_t> selection;  // with a viewport: the agents it carries
    bool has_selection = false;            // else a viewport frame's agents are found again
  };
  struct Job {
    BinaryViewer* viewer = nullptr;
    const Entry* base = nullptr;
    const BinaryViewer::Sent* base_sent = nullptr;
    std::optional<protocol::Viewport> view;
    std::uint8_t team = 0;
    std::uint8_t scale = protocol::kFinestScale;
    const protocol::DeltaCache* cache = nullptr;
    std::size_t share_from = kNoShare;  // the frame is that job's (the same SharedKey)
    bool store_shared = false, encoded = false, held = false;
    bool shared_in_batch = false;  // a later job of the batch takes this one's frame
    SharedKey shared_key;
    std::vector<std::uint32_t> current_sel, baseline_sel;
    SharedBytes frame;
    // Whether the frame carries a selection of the agents (a viewport's, a team's).
    bool selects() const { return view.has_value() || team != 0; }
  };
  void encode_job(const Entry& now, Job& job) const;

  std::deque<Entry> history_;
  std::uint64_t sequence_ = 0;
  std::string side_, layer_side_;
  std::vector<std::uint64_t> seen_;                 // this snapshot's (set_seen)
  std::map<std::uint8_t, std::string> team_sides_;  // this snapshot's (set_team_side)
  // This snapshot's frames without a side of their own: a node for every distinct viewport, so
  // their memory comes from an arena released at the next snapshot rather than from malloc.
  std::pmr::monotonic_buffer_resource shared_arena_;
  std::pmr::map<SharedKey, Shared> shared_{&shared_arena_};
  // This snapshot's change records against a baseline, built when a second frame needs them.
  struct Cache {
    int uses = 0;
    std::unique_ptr<protocol::DeltaCache> cache;
  };
  std::map<std::pair<std::uint64_t, std::uint8_t>, Cache> caches_;  // by baseline tick and scale
  const protocol::DeltaCache* cache_for(const Entry& now, const Entry& base, std::uint8_t scale);
  BinaryFeedStats stats_;
};

}  // namespace herd::net
