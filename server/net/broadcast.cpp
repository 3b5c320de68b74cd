// The hub's broadcast of a snapshot: the JSON text written once and shared by every JSON
// session, binary frames encoded per viewer (viewport, acks, keyframes) in steps posted behind
// other work on the hub's thread, and each shard handed its sessions' frames in one batch.
#include <algorithm>
#include <boost/asio/post.hpp>

#include "net/hub.hpp"
#include "publish/world_messages.hpp"

namespace herd::net {

void Server::Impl::broadcast_snapshot() {
  finish_steps();  // the last snapshot's frames first
  // The map travels in welcome, and again in the first snapshot after it changes.
  const bool map_changed = world.map_version() != map_version_sent;
  map_version_sent = world.map_version();
  ++snapshots_made;
  // Each format is encoded only when some session takes it: JSON once; binary once per
  // baseline for whole-world sessions and once per session with a viewport (binary_feed).
  // Frames go to each shard in batches (Shard::deliver), which start their writes there.
  std::vector<std::vector<Delivery>> by_shard(shards.size());
  SharedText json;
  const std::size_t agents = world.agents().size();
  std::vector<std::uint64_t> commanders, viewers;
  for (auto& [id, c] : clients) {
    if (!c.greeted) continue;
    if (c.wants_binary(agents)) {
      (c.role == protocol::Role::commander ? commanders : viewers).push_back(id);
      continue;
    }
    if (!json) json = share(publish::encode_snapshot(world, pending_collisions, map_changed, snapshots_made));
    by_shard[c.shard->index].push_back(Delivery::snapshot(c.session, json, false));
  }
  hand_over(by_shard);
  if (!commanders.empty() || !viewers.empty()) {
    // Encoded on the sim's thread pool, which is idle between ticks.
    binary_feed.begin(world, publish::encode_side(world, pending_collisions, map_changed).value_or(std::string()),
                      snapshots_made);
    // Commanders' frames first, handed over before the others are encoded: they wait to see
    // their commands.
    send_binary(commanders, 0, commanders.size());
    // The viewers in the same order every snapshot: each one's frames come at a steady point in
    // the interval. Starting each snapshot at another step was tried: it raised every viewer's
    // age above its own best case (p50 19-21 ms against 9), the jitter a client interpolates over.
    send_binary_in_steps(std::move(viewers));
  }
  pending_collisions.clear();
}

void Server::Impl::hand_over(std::vector<std::vector<Delivery>>& by_shard) {
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (by_shard[i].empty()) continue;
    const std::size_t skipped = shards[i]->deliver(snapshots_made, std::move(by_shard[i]));
    counters.snapshots_skipped += skipped;
    by_shard[i].clear();
  }
}

void Server::Impl::send_binary(const std::vector<std::uint64_t>& ids, std::size_t from, std::size_t to) {
  std::vector<Client*> group;
  std::vector<BinaryViewer*> batch;
  for (std::size_t k = from; k < to; ++k) {
    const auto it = clients.find(ids[k]);
    if (it == clients.end()) continue;  // left since the snapshot was taken
    Client& c = it->second;
    c.inbox->drain_into(c.binary);  // what the client acknowledged and asked for until now
    group.push_back(&c);
    batch.push_back(&c.binary);
  }
  if (batch.empty()) return;
  std::vector<SharedBytes> frames;
  binary_feed.frames_for(batch, frames, &pool);
  std::vector<std::vector<Delivery>> by_shard(shards.size());
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (!frames[i]) {  // held back: the client has not acknowledged the last frames sent
      ++counters.snapshots_held;
      continue;
    }
    by_shard[group[i]->shard->index].push_back(Delivery::snapshot(group[i]->session, std::move(frames[i]), true));
  }
  hand_over(by_shard);
}

// The viewers' frames kViewersPerStep at a time, each step posted behind what is queued on this
// thread: a command that arrives meanwhile waits for one step, not for every viewer's frame. The
// next tick (or a step by hand) sends what is left before it moves the world, so no viewer misses
// the snapshot; only a replaced world drops it (counted as dropped, superseded).
void Server::Impl::send_binary_in_steps(std::vector<std::uint64_t> ids) {
  pending_frames = {std::move(ids), 0, snapshots_made, binary_feed.sequence()};
  send_next_step();
}

bool Server::Impl::send_next_step() {
  PendingFrames& p = pending_frames;
  if (p.next >= p.ids.size()) return false;
  if (p.made != snapshots_made || p.sequence != binary_feed.sequence() || binary_feed.empty()) {
    counters.snapshots_superseded += p.ids.size() - p.next;
    p = {};
    return false;
  }
  const std::size_t to = std::min(p.ids.size(), p.next + kViewersPerStep);
  send_binary(p.ids, p.next, to);
  p.next = to;
  if (p.next == p.ids.size()) {
    p = {};
    return false;
  }
  if (!step_posted) {
    step_posted = true;
    asio::post(ioc, [this] {
      step_posted = false;
      send_next_step();
    });
  }
  return true;
}

void Server::Impl::finish_steps() {
  while (send_next_step()) {
  }
}

}  // namespace herd::net
