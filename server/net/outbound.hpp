// What waits to go out to WebSocket sessions: a session's two outbound lanes and an I/O thread's
// outbox of snapshots. Plain containers with no sockets, so that their policies (latest wins,
// how many wait, what is counted as dropped) are tested on their own; the session
// (websocket_session.hpp) and the shard (shard.hpp) own one each and do the writing and the
// posting.
#pragma once

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace herd::net {

using SharedText = std::shared_ptr<const std::string>;

// A session's outbound lanes: a bounded FIFO for control messages
// (welcome, acks, errors, pongs) and a latest-wins lane for snapshots. One message is written at
// a time; control messages go first.
//
// The snapshot lane holds at most kWaiting snapshots behind the one being written; a newer one
// replaces the oldest, counted as dropped. Two, not one: an I/O thread that was late hands a
// session two snapshots' frames at once, and the next may come before the first write's
// completion has run (its bytes already with the kernel); one slot would drop the middle frame
// of a reader that is not slow at all.
//
// The control lane holds at most `control_limit` messages and kControlBytes bytes (a message's
// shared tail counted whole: it is what the session keeps alive); an empty lane takes any one
// message. A welcome says the whole state, so a newer one replaces a welcome still waiting
// (latest wins, as snapshots do): a reader that stopped keeps one waiting welcome, not one per
// pause or rate change. From the first drop (a snapshot replaced, a welcome replaced) the session
// is behind until both lanes run empty (the slow-consumer timeout counts from then, paused or
// not).
class OutboundLanes {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kWaiting = 2;
  static constexpr std::size_t kControlBytes = std::size_t{1} << 20;

  explicit OutboundLanes(std::size_t control_limit, std::size_t control_bytes = kControlBytes)
      : control_limit_(control_limit), control_bytes_limit_(control_bytes) {}

  // False when the control lane is already full (in messages or bytes): the message is not
  // queued, and the session is to be closed (a client that does not read its replies).
  bool push_control(SharedText msg);
  // A welcome: `head` the session's own (its id and role), `tail` shared by every session
  // welcomed alike. A welcome still waiting is replaced (true in `replaced`). False as
  // push_control.
  bool push_welcome(SharedText head, SharedText tail, Clock::time_point now,
                    bool* replaced = nullptr);
  // Queues a snapshot's frame; true when it replaced an older one (a dropped snapshot). `tail`:
  // the session's own end of a JSON snapshot shared by others, written in place of the shared
  // text's closing brace (its inspect traces).
  bool push_snapshot(SharedText frame, bool binary, Clock::time_point now,
                     SharedText tail = nullptr);

  struct Message {
    SharedText bytes;
    SharedText tail;  // written right after `bytes`, in the same frame (a welcome's shared part)
    bool snapshot = false;
    bool binary = false;  // a binary frame (snapshots only)
    bool splice = false;  // the tail takes the place of bytes' last byte (a snapshot's tail)
    // The part of `bytes` written.
    std::size_t written_size() const { return bytes->size() - (splice ? 1 : 0); }
  };
  // The next message to write: the oldest control message, else the oldest snapshot. None when
  // both lanes are empty, which also ends being behind.
  std::optional<Message> pop();

  void clear_control() {
    control_.clear();
    control_bytes_ = 0;
  }
  void clear_snapshots() { snapshots_.clear(); }
  std::size_t control_size() const { return control_.size(); }
  std::size_t control_bytes() const { return control_bytes_; }
  std::size_t snapshots_waiting() const { return snapshots_.size(); }
  // Since the first snapshot or welcome dropped, until the lanes ran empty; none when caught up.
  std::optional<Clock::time_point> behind_since() const { return behind_since_; }

 private:
  struct Control {
    SharedText head, tail;
    bool welcome = false;
    std::size_t size() const { return head->size() + (tail ? tail->size() : 0); }
  };
  bool push(Control c);

  std::size_t control_limit_, control_bytes_limit_;
  std::size_t control_bytes_ = 0;
  std::deque<Control> control_;
  struct Snapshot {
    SharedText frame, tail;
    bool binary = false;
  };
  std::deque<Snapshot> snapshots_;
  std::optional<Clock::time_point> behind_since_;
};

// What the tick thread hands to one I/O thread for its sessions, not yet given to them: the
// frames of each snapshot, and messages (replies, welcomes) that must not be overtaken by frames
// handed over after them. A handler posted to the I/O thread takes every waiting message, then a
// few frames, and posts itself again while frames are left, so that the thread's other work (a
// command's read, acks) waits for a few writes rather than for every session's.
//
// Order: a message is taken no later than any frame added after it (it may overtake frames added
// before it, as a reply posted straight to the thread would). Frames keep their order.
// Latest wins: a thread more than kBacklog snapshots behind skips the oldest snapshot's frames not
// yet taken (freed at once): its sessions then get a newer one, which binary deltas allow (each is
// against what the client acknowledged). Messages are never skipped. Thread-safe.
template <class Item>
class Outbox {
 public:
  static constexpr std::size_t kBacklog = 2;

  // Whether the caller must post a take: none is pending (the last take left nothing).
  using Post = bool;

  struct Added {
    std::size_t skipped = 0;  // frames of older snapshots dropped to make room
    Post post = false;
  };
  // Adds frames of snapshot number `snapshot` (several calls may add to the newest one).
  Added add(std::uint64_t snapshot, std::vector<Item> frames) {
    Added out;
    const std::lock_guard lock(mutex_);
    if (!waiting_.empty() && waiting_.back().first == snapshot) {
      auto& to = waiting_.back().second;
      to.insert(to.end(), std::make_move_iterator(frames.begin()),
                std::make_move_iterator(frames.end()));
    } else {
      waiting_.emplace_back(snapshot, std::move(frames));
    }
    while (waiting_.size() > kBacklog) out.skipped += drop_front();
    out.post = ask_for_take();
    return out;
  }
  Post add_message(Item message) {
    const std::lock_guard lock(mutex_);
    messages_.push_back(std::move(message));
    return ask_for_take();
  }
  // Drops every frame not yet taken (the world they show was replaced); returns how many.
  std::size_t drop_frames() {
    std::size_t dropped = 0;
    const std::lock_guard lock(mutex_);
    while (!waiting_.empty()) dropped += drop_front();
    return dropped;
  }

  struct Taken {
    std::vector<Item> messages;  // every waiting message, in the order added
    std::vector<Item> frames;    // then at most `max` frames, oldest snapshot first
    bool more = false;  // frames are left: the caller posts another take (add() will not ask)
  };
  Taken take(std::size_t max) {
    assert(max > 0);
    Taken out;
    const std::lock_guard lock(mutex_);
    out.messages.swap(messages_);
    while (!waiting_.empty() && out.frames.size() < max) {
      auto& frames = waiting_.front().second;
      const std::size_t n = std::min(max - out.frames.size(), frames.size() - front_taken_);
      const auto first = frames.begin() + static_cast<std::ptrdiff_t>(front_taken_);
      out.frames.insert(out.frames.end(), std::make_move_iterator(first),
                        std::make_move_iterator(first + static_cast<std::ptrdiff_t>(n)));
      front_taken_ += n;
      if (front_taken_ == frames.size()) {
        waiting_.pop_front();
        front_taken_ = 0;
      }
    }
    out.more = !waiting_.empty();
    posted_ = out.more;
    return out;
  }

 private:
  using Batch = std::pair<std::uint64_t, std::vector<Item>>;  // a snapshot's number and its frames

  std::size_t drop_front() {  // the oldest snapshot's frames not yet taken
    const std::size_t dropped = waiting_.front().second.size() - front_taken_;
    waiting_.pop_front();
    front_taken_ = 0;
    return dropped;
  }
  Post ask_for_take() {
    const bool post = !posted_;
    posted_ = true;
    return post;
  }

  std::mutex mutex_;
  std::vector<Item> messages_;
  std::deque<Batch> waiting_;
  std::size_t front_taken_ = 0;  // frames of the oldest batch already taken
  bool posted_ = false;
};

}  // namespace herd::net
