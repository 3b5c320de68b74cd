#include "net/hub.hpp"

#include <algorithm>
#include <array>
#include <boost/asio/post.hpp>

#include "herd/sim/world.hpp"
#include "herd/sim/world_def.hpp"
#include "protocol/codec.hpp"

namespace herd::net {
namespace {

// Sessions that only watch (counted as viewers): viewers and spectators.
bool watches(protocol::Role role) {
  return role == protocol::Role::viewer || role == protocol::Role::spectator;
}

}  // namespace

// ---- sessions' requests -----------------------------------------------------------------------

void Hub::join(std::uint64_t id, std::weak_ptr<WsSession> session, Shard* shard,
               std::shared_ptr<ViewerInbox> inbox, std::shared_ptr<const SessionStats> stats) {
  Client& c = clients_[id];
  c.session = std::move(session);
  c.shard = shard;
  c.inbox = std::move(inbox);
  c.stats = std::move(stats);
  ++counters_.ungreeted;
  counters_.sessions = clients_.size();
}

void Hub::leave(std::uint64_t id) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  const Client& c = it->second;
  (!c.greeted ? counters_.ungreeted : watches(c.role) ? counters_.viewers : counters_.commanders)--;
  const bool inspected = !c.inspect.empty();
  if (c.density) --density_clients_;
  if (c.greeted && c.role == protocol::Role::spectator)
    --spectators_by_format_[static_cast<std::size_t>(c.format)];
  if (c.greeted && c.role == protocol::Role::player) {
    const auto p = player_sessions_.find(c.player);
    if (p != player_sessions_.end() && --p->second == 0) {
      player_sessions_.erase(p);
      if (on_player_) on_player_(c.player, false);
    }
  }
  source_->left(id);
  clients_.erase(it);
  counters_.sessions = clients_.size();
  if (inspected) source_->inspected_changed();
}

void Hub::hello(std::uint64_t id, WorldSource::Hello hello) {
  const auto it = clients_.find(id);
  if (it == clients_.end()) return;
  it->second.client = hello.client;
  it->second.team = hello.team;
  it->second.player = hello.player;
  it->second.says_operator = hello.says_operator;
  source_->hello(id, std::move(hello));
}

void Hub::inspect(std::uint64_t id, std::vector<std::uint32_t> agents) {
  if (auto it = clients_.find(id); it != clients_.end()) {
    it->second.inspect = std::move(agents);
    source_->inspected_changed();
  }
}

void Hub::density(std::uint64_t id, bool on) {
  const auto it = clients_.find(id);
  if (it == clients_.end() || it->second.density == on) return;
  it->second.density = on;
  on ? ++density_clients_ : --density_clients_;
}

void Hub::command(std::uint64_t id, const protocol::CommandMsg& command) {
  source_->command(id, command);
}

void Hub::control(std::uint64_t id, const protocol::ControlMsg& control) {
  if (const auto* kick = std::get_if<protocol::Kick>(&control.control))
    return this->kick(id, control.seq, kick->session);
  source_->control(id, control);
}

void Hub::sessions(std::uint64_t id, std::uint32_t seq) {
  if (!clients_.contains(id)) return;
  std::vector<SessionRow> rows;
  rows.reserve(clients_.size());
  for (const auto& [cid, c] : clients_) {
    SessionRow& r = rows.emplace_back();
    r.id = cid;
    r.stats = c.stats.get();
    if (c.greeted) {
      r.role = c.role;
      r.format = c.format;
      if (c.role == protocol::Role::player) {
        r.player = c.player;
        r.team = c.team;
      }
    }
    r.client = c.client;
  }
  reply(id, share(protocol::encode(list_sessions(seq, id, std::move(rows), Clock::now()))));
}

void Hub::kick(std::uint64_t from, std::uint32_t seq, std::uint64_t target) {
  const auto it = clients_.find(target);
  if (it == clients_.end()) {
    ++counters_.commands_rejected;
    observe_.count_error(protocol::ErrorCode::unknown_session);
    return reply(from, share(protocol::encode(protocol::Error{
                           seq, protocol::ErrorCode::unknown_session,
                           "no session " + std::to_string(target) + " on this server"})));
  }
  ++counters_.commands_accepted;
  reply(from, share(protocol::encode(protocol::Ack{seq, counters_.tick.load()})));
  const Client& c = it->second;
  // After the ack: a session that kicks itself reads its ack before the close.
  c.shard->deliver(Delivery::message(Delivery::Kind::kick, c.session, nullptr));
  observe_.log(LogLevel::info, "kicked",
               {{"session", std::to_string(target)},
                {"address", c.stats ? c.stats->address : std::string()},
                {"by", std::to_string(from)}});
}

void Hub::reply(std::uint64_t id, SharedText msg, std::optional<std::uint16_t> then_close) {
  if (auto it = clients_.find(id); it != clients_.end())
    it->second.shard->deliver(
        Delivery::message(Delivery::Kind::reply, it->second.session, std::move(msg), then_close));
}

// ---- what the world source tells the clients -------------------------------------------------

void Hub::greet(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  Client& c = it->second;
  c.greeted = true;
  c.role = role;
  c.format = format;
  --counters_.ungreeted;
  ++(watches(role) ? counters_.viewers : counters_.commanders);
  if (role == protocol::Role::spectator) ++spectators_by_format_[static_cast<std::size_t>(format)];
  if (role == protocol::Role::player) {
    c.binary.set_team(c.team);
    if (++player_sessions_[c.player] == 1 && on_player_) on_player_(c.player, true);
  }
  const protocol::Welcome w = source_->welcome(id, role);
  reply(id, share(welcome_head(w, id, c) + protocol::encode_welcome_tail(w)));
}

std::string Hub::welcome_head(protocol::Welcome w, std::uint64_t id, const Client& c) {
  w.session = id;
  w.says_operator = c.says_operator && c.role == protocol::Role::commander;
  if (c.role == protocol::Role::player) {
    w.player = c.player;
    w.team = c.team;
  }
  return protocol::encode_welcome_head(w);
}

Hub::SpectatorFormats Hub::spectator_formats(bool auto_binary) const {
  const auto count = [&](protocol::SnapshotFormat f) {
    return spectators_by_format_[static_cast<std::size_t>(f)];
  };
  const bool automatic = count(protocol::SnapshotFormat::automatic) > 0;
  return {count(protocol::SnapshotFormat::json) > 0 || (automatic && !auto_binary),
          count(protocol::SnapshotFormat::binary) > 0 || (automatic && auto_binary)};
}

std::uint8_t Hub::team_of(std::uint64_t id) const {
  const auto it = clients_.find(id);
  return it != clients_.end() && it->second.role == protocol::Role::player ? it->second.team : 0;
}

void Hub::tell(std::uint64_t id, SharedText msg) {
  if (auto it = clients_.find(id); it != clients_.end())
    it->second.shard->deliver(
        Delivery::message(Delivery::Kind::control, it->second.session, std::move(msg)));
}

void Hub::send_welcomes(bool new_world) {
  // The welcome's tail (the map above all) is encoded once per role and shared by every session,
  // as a snapshot is; each session's own head (its id and role) is a few bytes.
  struct Shared {
    std::optional<protocol::Welcome> welcome;
    SharedText tail;
  };
  Shared by_role[4];
  for (auto& [id, c] : clients_) {
    if (!c.greeted) continue;
    Shared& s = by_role[static_cast<std::size_t>(c.role)];
    if (!s.welcome) {
      s.welcome = source_->welcome(id, c.role);
      s.tail = share(protocol::encode_welcome_tail(*s.welcome));
    }
    c.shard->deliver(
        Delivery::welcome(new_world, c.session, share(welcome_head(*s.welcome, id, c)), s.tail));
  }
}

void Hub::new_world() {
  binary_feed_.clear();  // ticks start again: every baseline is gone
  spectator_feed_.clear();
  // The old world's frames not yet given to sessions go; those in sessions' lanes go when the
  // new world's welcome reaches them (Delivery::Kind::new_world).
  for (auto& shard : shards_) counters_.snapshots_superseded += shard->outbox.drop_frames();
  for (auto& [id, c] : clients_) {
    c.inbox->clear();  // acks of the old world's ticks
    c.binary.reset();
  }
}

// The agents the world traces, at most World::kMaxInspected, chosen by who asks: the operator's
// sessions first, then players', then viewers' and spectators'; within each, one id from every
// session in turn (by session id), so that no session's list crowds out another's. Before, the
// world kept the lowest ids of everyone's lists: four spectators inspecting ids 0 to 63 stopped
// every player's and the operator's traces.
std::vector<std::uint32_t> Hub::inspected() const {
  const auto rank = [](protocol::Role r) {
    switch (r) {
      case protocol::Role::commander:
        return 0;
      case protocol::Role::player:
        return 1;
      default:
        return 2;
    }
  };
  std::vector<std::pair<std::pair<int, std::uint64_t>, const Client*>> askers;
  for (const auto& [id, c] : clients_)
    if (!c.inspect.empty()) askers.push_back({{rank(c.role), id}, &c});
  std::sort(askers.begin(), askers.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::uint32_t> ids;
  const auto take = [&](std::uint32_t id) {
    if (ids.size() < sim::World::kMaxInspected &&
        std::find(ids.begin(), ids.end(), id) == ids.end())
      ids.push_back(id);
  };
  for (std::size_t begin = 0; begin < askers.size();) {
    std::size_t end = begin;
    while (end < askers.size() && askers[end].first.first == askers[begin].first.first) ++end;
    for (std::size_t k = 0; k < protocol::kMaxInspectPerSession; ++k)
      for (std::size_t a = begin; a < end; ++a)
        if (k < askers[a].second->inspect.size()) take(askers[a].second->inspect[k]);
    begin = end;
  }
  return ids;
}

// ---- snapshots ---------------------------------------------------------------------------------
// Each format is encoded only when some client takes it: JSON once; binary once per baseline for
// whole-world clients and once per client with a viewport (binary_feed). Frames go to each shard
// in batches (Shard::deliver), which start their writes there.

// Frames of the last snapshot still to be encoded when the next is taken go first, for as long as
// the source allows (a part of its interval): a burst that delayed them is absorbed. Those still
// left then are not encoded: the frame work fell a whole snapshot behind (more viewers than the
// hub's threads encode in an interval). Those viewers get this snapshot instead, first
// (send_binary), so the ones dropped are not always the same. Finishing them all, however long
// that took, made this snapshot and the ticks after it late for every viewer, until a tick came
// so late that its snapshot was never taken.
std::uint64_t Hub::begin_snapshot(std::chrono::nanoseconds finish_within) {
  const auto until = Clock::now() + finish_within;
  while (Clock::now() < until && send_next_step()) {
  }
  if (steps_current())
    counters_.snapshots_encode_behind += steps_.end(true);
  else
    counters_.snapshots_superseded += steps_.end(false);  // the world was replaced
  density_.clear();
  density_tail_.reset();
  return ++snapshots_made_;
}

void Hub::attach_density(const protocol::DensityLayer& layer) {
  density_ = protocol::density_member(layer);
  density_tail_ = share(density_ + '}');
}

Hub::BinaryTakers Hub::send_json(std::size_t agents, const std::function<SharedText()>& json,
                                 protocol::InspectTexts inspect) {
  return send_json(agents, json, std::move(inspect), Restricted{});
}

Hub::BinaryTakers Hub::send_json(std::size_t agents, const std::function<SharedText()>& json,
                                 protocol::InspectTexts inspect, const Restricted& restricted) {
  inspect_ = std::move(inspect);
  player_inspect_ = restricted.team_inspect;
  std::vector<std::vector<Delivery>> by_shard(shards_.size());
  SharedText text;
  BinaryTakers binary;
  std::array<SharedText, sim::AgentDefLimits::kMaxTeam + 1> by_team;
  std::vector<std::uint64_t> spectators;  // delayed, binary
  auto_binary_ = protocol::auto_binary(auto_binary_, agents);
  const bool delayed = restricted.delayed.json || restricted.delayed.state;
  for (auto& [id, c] : clients_) {
    if (!c.greeted) continue;
    if (c.role == protocol::Role::spectator && restricted.delay) {
      // The delayed world's own choice: the live world's count must neither silence this
      // stream (the delayed snapshot kept in the other format) nor show through it.
      if (!delayed) continue;
      const bool as_binary = c.wants_binary(restricted.delayed.auto_binary);
      switch_format(c, as_binary);
      if (as_binary)
        spectators.push_back(id);
      else if (restricted.delayed.json)
        by_shard[c.shard->index].push_back(
            Delivery::snapshot(c.session, restricted.delayed.json, false,
                               session_tail(c, publish::Audience::delayed)));
      continue;
    }
    const bool as_binary = c.wants_binary(auto_binary_);
    switch_format(c, as_binary);
    if (c.role == protocol::Role::player && as_binary) {
      binary.players.push_back(id);
      continue;
    }
    if (c.role == protocol::Role::player && restricted.team) {
      SharedText& own = by_team[c.team];
      if (!own) own = restricted.team(c.team);
      by_shard[c.shard->index].push_back(
          Delivery::snapshot(c.session, own, false, session_tail(c, publish::Audience::team)));
      continue;
    }
    if (as_binary) {
      (c.role == protocol::Role::commander ? binary.commanders : binary.viewers).push_back(id);
      continue;
    }
    if (!text) text = json();
    by_shard[c.shard->index].push_back(
        Delivery::snapshot(c.session, text, false, session_tail(c, publish::Audience::viewers)));
  }
  hand_over(by_shard);
  // Delayed spectators' frames come from their own feed of the states of the delay before.
  if (!spectators.empty() && restricted.delayed.state) {
    spectator_feed_.begin(restricted.delayed.state, restricted.delayed.side);
    send_frames(spectator_feed_, spectators);
  }
  return binary;
}

void Hub::switch_format(Client& c, bool binary) {
  if (binary && !c.sent_binary && c.format == protocol::SnapshotFormat::automatic)
    c.binary.request_keyframe();
  c.sent_binary = binary;
}

void Hub::send_binary(BinaryTakers takers, std::string side_open,
                      std::map<std::uint8_t, std::string> team_opens) {
  side_open_ = std::move(side_open);
  team_opens_ = std::move(team_opens);
  // The side section of the frames of clients that take the density layer, shared by them.
  if (!density_.empty())
    binary_feed_.set_layer_side(protocol::side_section(side_open_ + density_, {}, {}));
  // Commanders' frames first, handed over before the others are encoded: they wait to see
  // their commands.
  send_frames(binary_feed_, takers.commanders);
  send_frames(binary_feed_, takers.players);
  // The viewers in the same order every snapshot: each one's frames come at a steady point in
  // the interval. Starting each snapshot at another step was tried: it raised every viewer's
  // age above its own best case (p50 19-21 ms against 9), the jitter a client interpolates over.
  // Only the viewers the last snapshot's steps did not reach go first (FrameSteps).
  send_in_steps(std::move(takers.viewers));
}

std::vector<std::uint32_t> Hub::own_traced(const Client& c) const {
  std::vector<std::uint32_t> mine;
  for (std::uint32_t a : c.inspect)
    if (const auto* e = player_inspect_.find(a); e && e->team == c.team) mine.push_back(a);
  return mine;
}

publish::Audience Hub::audience(const Client& c, const BinaryFeed* feed) const {
  if (c.role == protocol::Role::player) return publish::Audience::team;
  return feed == &spectator_feed_ ? publish::Audience::delayed : publish::Audience::viewers;
}

namespace {

// Whether `part` reaches `audience`, as its row in the snapshot plan says.
bool reaches(bool publish::SnapshotParts::*part, publish::Audience audience) {
  return publish::SnapshotPlan::reaches(part, audience);
}

}  // namespace

// The tail replaces the shared text's closing brace: the text is not copied, and a tail of the
// layer alone is shared too. A team's traces are its own agents', as its team sees them.
SharedText Hub::session_tail(const Client& c, publish::Audience audience) const {
  const bool layer =
      c.density && density_tail_ && reaches(&publish::SnapshotParts::density, audience);
  std::string traces;
  if (reaches(&publish::SnapshotParts::traces, audience))
    traces = audience == publish::Audience::team
                 ? protocol::inspect_suffix(player_inspect_, own_traced(c))
                 : protocol::inspect_suffix(inspect_, c.inspect);
  if (traces.empty()) return layer ? density_tail_ : nullptr;
  return share(layer ? density_ + traces : std::move(traces));
}

// A player's traces go on its team's side section, the others' on the snapshot's.
std::string Hub::own_side(const Client& c, publish::Audience audience) const {
  if (!reaches(&publish::SnapshotParts::traces, audience)) return {};
  const bool team = audience == publish::Audience::team;
  const protocol::InspectTexts& texts = team ? player_inspect_ : inspect_;
  const std::vector<std::uint32_t> ids = team ? own_traced(c) : c.inspect;
  const bool traced = std::any_of(ids.begin(), ids.end(),
                                  [&](std::uint32_t id) { return texts.find(id) != nullptr; });
  if (!traced) return {};
  const std::string* open = &side_open_;
  if (team) {
    const auto own = team_opens_.find(c.team);
    if (own == team_opens_.end()) return {};
    open = &own->second;
  }
  const bool layer =
      c.density && !density_.empty() && reaches(&publish::SnapshotParts::density, audience);
  return protocol::side_section(layer ? *open + density_ : *open, texts, ids);
}

void Hub::hand_over(std::vector<std::vector<Delivery>>& by_shard) {
  for (std::size_t i = 0; i < shards_.size(); ++i) {
    if (by_shard[i].empty()) continue;
    const std::size_t skipped = shards_[i]->deliver(snapshots_made_, std::move(by_shard[i]));
    counters_.snapshots_skipped += skipped;
    by_shard[i].clear();
  }
}

void Hub::send_frames(BinaryFeed& feed, std::span<const std::uint64_t> ids) {
  std::vector<Client*> group;
  std::vector<BinaryViewer*> batch;
  for (const std::uint64_t id : ids) {
    const auto it = clients_.find(id);
    if (it == clients_.end()) continue;  // left since the snapshot was taken
    Client& c = it->second;
    c.inbox->drain_into(c.binary);  // what the client acknowledged and asked for until now
    // The parts attached per session, as they reach its audience (delayed spectators': none of
    // the world now).
    const publish::Audience to = audience(c, &feed);
    c.binary.set_side(own_side(c, to));
    c.binary.set_layers(c.density && reaches(&publish::SnapshotParts::density, to));
    group.push_back(&c);
    batch.push_back(&c.binary);
  }
  if (batch.empty()) return;
  std::vector<SharedBytes> frames;
  feed.frames_for(batch, frames, &pool_);
  std::vector<std::vector<Delivery>> by_shard(shards_.size());
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (!frames[i]) {  // held back: the client has not acknowledged the last frames sent
      ++counters_.snapshots_held;
      continue;
    }
    by_shard[group[i]->shard->index].push_back(
        Delivery::snapshot(group[i]->session, std::move(frames[i]), true));
  }
  hand_over(by_shard);
}

// The viewers' frames kViewersPerStep at a time, each step posted behind what is queued on this
// thread: a command that arrives meanwhile waits for one step, not for every viewer's frame, and
// a tick that falls due runs between two steps (the frames are of the feed's copy of the
// snapshot, which the world's moving does not touch). The steps go on until the next snapshot is
// taken (begin_snapshot); a replaced world drops what is left (counted as dropped, superseded).
void Hub::send_in_steps(std::vector<std::uint64_t> ids) {
  steps_.start(std::move(ids));
  steps_made_ = snapshots_made_;
  steps_sequence_ = binary_feed_.sequence();
  send_next_step();
}

bool Hub::steps_current() const {
  return steps_made_ == snapshots_made_ && steps_sequence_ == binary_feed_.sequence() &&
         !binary_feed_.empty();
}

bool Hub::send_next_step() {
  if (steps_.left() == 0) return false;
  if (!steps_current()) {
    counters_.snapshots_superseded += steps_.end(false);
    return false;
  }
  send_frames(binary_feed_, steps_.take(kViewersPerStep));
  if (steps_.left() == 0) return false;
  if (!step_posted_) {
    step_posted_ = true;
    asio::post(ioc_, [this] {
      step_posted_ = false;
      send_next_step();
    });
  }
  return true;
}

void Hub::finish_steps() {
  while (send_next_step()) {
  }
}

}  // namespace herd::net
