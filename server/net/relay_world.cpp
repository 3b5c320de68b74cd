#include "net/relay_world.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <limits>
#include <random>

#include "herd/sim/world_def.hpp"
#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"
#include "protocol/snapshot_json.hpp"

namespace herd::net {
namespace {

// Pauses before a new attempt after a link is lost or could not be made: doubling, jittered.
constexpr std::chrono::milliseconds kRetryMin{250}, kRetryMax{5000};
// Commands and controls sent on the link and not answered yet, all commanders together; more get
// upstream_unavailable (an upstream that stopped answering holds no more than this).
constexpr std::size_t kMaxPending = 1024;
// Snapshots are relayed at most at this many times the upstream's snapshot rate (a server's
// snapshots come late and bunched now and then), plus one a second, in bursts of kPaceBurst.
constexpr double kPaceFactor = 1.25;
constexpr double kPaceBurst = 4;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string hello_text(protocol::Role role, std::string token, std::string client,
                       protocol::SnapshotFormat format) {
  protocol::Hello h;
  h.role = role;
  h.token = std::move(token);
  h.client = std::move(client);
  if (h.client.size() > protocol::kMaxClientNameBytes)
    h.client.resize(protocol::kMaxClientNameBytes);
  h.format = format;
  return protocol::encode(h);
}

// The next pause before a retry: doubled within [kRetryMin, kRetryMax], then jittered by up to a
// quarter either way, so relays that lost the same server do not all come back at once.
std::chrono::milliseconds next_backoff(std::chrono::milliseconds& backoff) {
  backoff = std::clamp(backoff * 2, kRetryMin, kRetryMax);
  static thread_local std::minstd_rand jitter{std::random_device{}()};
  const auto quarter = backoff.count() / 4;
  return std::chrono::milliseconds(backoff.count() - quarter +
                                   static_cast<long>(jitter() % (2 * quarter + 1)));
}

// The side section of a binary frame (PROTOCOL.md "Side section") from a whole JSON snapshot
// (its inspect traces taken out), open for each session's inspected agents.
protocol::SideOpen side_open(const protocol::Snapshot& s) {
  return protocol::open_side_section(
      s.tick, s.time, s.avoidance, s.serial, s.obstacles ? &*s.obstacles : nullptr, s.collisions,
      s.formations, s.map, s.map_cleared, s.measurements ? &*s.measurements : nullptr,
      s.sources ? &*s.sources : nullptr, s.exits ? &*s.exits : nullptr,
      s.walls ? &*s.walls : nullptr);
}

std::size_t text_bytes(std::string_view text) { return text.size(); }

// What the protocol's encoder writes for one element of each kind, measured by `measure` (bytes,
// or values): numbers at their widest within the world's limits.
struct Widest {
  std::size_t agent, formation, obstacle, collision, inspect, push, map, measurement, source,
      snapshot, event, health;
  std::size_t wall, wall_point;  // a wall of two points, and each point more
};

Widest widest(std::size_t (*measure)(std::string_view)) {
  constexpr double kCoord = -999999.999, kSpeed = -9999.999;
  protocol::Snapshot empty;
  empty.tick = empty.serial = std::numeric_limits<std::uint64_t>::max();
  empty.time = -1e15;
  const std::size_t base = measure(protocol::encode(empty));
  auto cost = [&](auto&& fill) {
    protocol::Snapshot s = empty;
    fill(s);
    return measure(protocol::encode(s)) - base + 1;  // and a comma
  };
  Widest w{};
  w.snapshot = base;
  w.agent = cost([&](protocol::Snapshot& s) {
    protocol::AgentState a;
    a.id = std::numeric_limits<std::uint32_t>::max();
    a.x = a.y = kCoord;
    a.vx = a.vy = kSpeed;
    a.r = -sim::ObstacleLimits::kMaxRadius - 0.999;
    a.group = 255;
    a.state = sim::MoveState::unreachable;
    a.target = sim::Vec2{kCoord, kCoord};
    a.behaviour = sim::BehaviourKind::pursue;  // the longest names
    a.phase = sim::Phase::approach;
    a.collided = a.kinematic = a.path_pending = true;
    a.pathing = sim::Pathing::no_backtrack;
    a.history.assign(
        32, sim::TileCoord{sim::TileMapLimits::kMaxSide - 1, sim::TileMapLimits::kMaxSide - 1});
    a.subject = std::numeric_limits<std::uint32_t>::max();
    a.waypoints.assign(protocol::kMaxWaypointsPerAgent, sim::Vec2{kCoord, kCoord});
    a.priority = 255;
    a.layer = a.mask = std::numeric_limits<std::uint32_t>::max() - 1;
    a.team = sim::AgentDefLimits::kMaxTeam;
    a.sight = kCoord;
    a.hp = a.max_hp = -sim::AgentDefLimits::kMaxHp - 0.999;
    a.stall = sim::StallReason::blocked_by_standing;
    a.stall_for = -1e15;
    a.stall_by.assign(sim::StallRule::kMaxBy, std::numeric_limits<std::uint32_t>::max());
    s.agents.push_back(a);
  });
  w.event = cost([&](protocol::Snapshot& s) {
    s.events.push_back({sim::EventKind::hit, std::numeric_limits<std::uint64_t>::max(),
                        std::numeric_limits<std::uint32_t>::max(),
                        std::numeric_limits<std::uint32_t>::max(), kCoord, kCoord,
                        -sim::AgentDefLimits::kMaxDamage - 0.999,
                        -sim::AgentDefLimits::kMaxHp - 0.999});
  });
  w.health = cost([&](protocol::Snapshot& s) {
    const double hp = -sim::AgentDefLimits::kMaxHp - 0.999;
    s.health.emplace().push_back({std::numeric_limits<std::uint32_t>::max(), hp, hp});
  });
  w.formation = cost([&](protocol::Snapshot& s) {
    protocol::FormationState f;
    f.id = f.agents = f.arrived = std::numeric_limits<std::uint32_t>::max();
    f.complete = true;
    f.unreachable.push_back(
        {std::numeric_limits<std::uint32_t>::max(), kCoord, kCoord, true, kCoord, kCoord});
    s.formations.push_back(f);
  });
  w.obstacle = cost([&](protocol::Snapshot& s) {
    s.obstacles.emplace().push_back(
        {std::numeric_limits<std::uint32_t>::max(), kCoord, kCoord, -1e4});
  });
  w.measurement = cost([&](protocol::Snapshot& s) {
    protocol::MeasurementState m;
    m.id = std::numeric_limits<std::uint32_t>::max();
    m.a = m.b = {kCoord, kCoord};
    m.forward = m.backward = m.tick = std::numeric_limits<std::uint64_t>::max();
    m.seconds = m.flow_forward = m.flow_backward = -1e15;
    m.mean_gap = -1e15;
    s.measurements.emplace().push_back(m);
    m.line = false;
    m.count = std::numeric_limits<std::uint32_t>::max();
    m.density = -1e15;
    m.mean_speed = -1e15;
    s.measurements->push_back(m);  // a line and an area: more than either
  });
  w.source = cost([&](protocol::Snapshot& s) {  // a source and an exit
    constexpr auto kMax32 = std::numeric_limits<std::uint32_t>::max();
    s.sources.emplace().push_back(
        {kMax32, {kCoord, kCoord}, {kCoord, kCoord}, -1e15, kMax32, kMax32, kMax32});
    s.exits.emplace().push_back(
        {kMax32, {kCoord, kCoord}, {kCoord, kCoord}, std::numeric_limits<std::uint64_t>::max()});
  });
  protocol::WallState wall{std::numeric_limits<std::uint32_t>::max(),
                           {{kCoord, kCoord}, {kCoord, kCoord}},
                           false};  // "false": longer than "true"
  w.wall = cost([&](protocol::Snapshot& s) { s.walls.emplace().push_back(wall); });
  wall.points.push_back({kCoord, kCoord});
  w.wall_point = cost([&](protocol::Snapshot& s) { s.walls.emplace().push_back(wall); }) - w.wall;
  w.collision = cost([&](protocol::Snapshot& s) {
    s.collisions.push_back({std::numeric_limits<std::uint32_t>::max(),
                            std::numeric_limits<std::uint32_t>::max(), true, kCoord, kCoord, -1e9});
  });
  const sim::Vec2 v{kCoord, kCoord};
  protocol::InspectState trace{
      std::numeric_limits<std::uint32_t>::max(), v, v, v, v, v, v, v, v, kCoord, {}};
  w.inspect = cost([&](protocol::Snapshot& s) { s.inspect.push_back(trace); });
  protocol::PushState push{std::numeric_limits<std::uint32_t>::max(),
                           true,
                           v,
                           v,
                           kCoord,
                           true,
                           true,
                           true,
                           v,
                           kCoord,
                           kCoord,
                           kCoord,
                           v};
  trace.pushes.push_back(push);
  w.push = cost([&](protocol::Snapshot& s) { s.inspect.push_back(trace); }) - w.inspect;
  w.map = cost([&](protocol::Snapshot& s) {
    constexpr auto side = static_cast<std::size_t>(sim::TileMapLimits::kMaxSide);
    s.map = protocol::MapState{sim::TileMapLimits::kMaxSide, sim::TileMapLimits::kMaxSide, 1e4,
                               std::vector<std::string>(side, std::string(side, '#'))};
  });
  return w;
}

// Every wall a world may hold (sim::WallLimits), at their widest, in `w`'s measure.
std::uint64_t all_walls(const Widest& w) {
  return std::uint64_t{sim::WallLimits::kMaxWalls} * w.wall +
         std::uint64_t{sim::WallLimits::kMaxTotalPoints} * w.wall_point;
}

// The largest snapshot of a world of `max_agents` agents, in `w`'s measure, plus a quarter.
std::size_t largest(const Widest& w, std::uint32_t max_agents) {
  const std::uint64_t agents = max_agents == 0
                                   ? sim::WorldDef{}.max_agents
                                   : std::min(max_agents, sim::WorldDefLimits::kMaxAgents);
  const std::uint64_t n =
      w.snapshot + agents * (w.agent + w.formation + w.health) +
      (protocol::kMaxEventsPerSnapshot + agents) * w.event +  // the hits and every death
      std::uint64_t{sim::WorldDef{}.max_obstacles} * w.obstacle +
      protocol::kMaxCollisionsPerSnapshot * w.collision +
      std::uint64_t{sim::kMaxMeasurements} * w.measurement +
      std::uint64_t{std::max(sim::SourceLimits::kMaxSources, sim::SourceLimits::kMaxExits)} *
          w.source +
      all_walls(w) + protocol::kMaxInspectPerSession * (w.inspect + 1000 * w.push) + w.map;
  return static_cast<std::size_t>(n + n / 4);
}

}  // namespace

// Every value but a container's first follows a comma, and each container is one.
std::size_t json_values(std::string_view text) {
  std::size_t n = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' || c == '{' || c == '[') {
      ++n;
    }
  }
  return n;
}

// A welcome holds the map, every obstacle and every wall.
std::size_t max_welcome_bytes() {
  static const Widest w = widest(text_bytes);
  return w.map + std::size_t{sim::WorldDef{}.max_obstacles} * w.obstacle + all_walls(w) +
         (256u << 10);
}

std::size_t max_snapshot_bytes(std::uint32_t max_agents) {
  static const Widest w = widest(text_bytes);
  return largest(w, max_agents);
}

std::size_t max_snapshot_values(std::uint32_t max_agents) {
  static const Widest w = widest(json_values);
  return largest(w, max_agents);
}

std::variant<UpstreamUrl, std::string> RelayWorld::parse_url(const std::string& text) {
  auto url = protocol::parse_ws_url(text);
  if (auto* why = std::get_if<std::string>(&url)) return "relay upstream '" + text + "': " + *why;
  if (std::get<protocol::WsUrl>(url).tls)
    return "relay upstream '" + text + "': must be ws://, not wss://";
  return std::get<protocol::WsUrl>(std::move(url));
}

RelayWorld::RelayWorld(UpstreamUrl url, Link link)
    : url_(std::move(url)), pace_(1, kPaceBurst, seconds_now()) {
  settings_.commands = link.commands;
  settings_.link_format = link.format;
}

void RelayWorld::attach(const SourceParts& parts) {
  const ServerConfig& c = parts.config;
  settings_.max_message_bytes = c.max_message_bytes;
  settings_.token = c.command_token;
  settings_.rate_limit = c.rate_limit;
  settings_.rate_burst = c.rate_burst;
  ioc_ = &parts.hub_ioc;
  link_ioc_ = &parts.link_ioc;
  hub_ = &parts.hub;
  observe_ = &parts.observe;
  counters_ = &parts.observe.counters();
  retry_.emplace(parts.hub_ioc);
  pace_timer_.emplace(parts.hub_ioc);
  link_rate_.emplace(settings_.rate_limit, settings_.rate_burst, seconds_now());
}

UpstreamLink::Events RelayWorld::events(std::uint64_t generation) {
  // Called on the link's I/O thread: each event is posted to the hub's thread.
  UpstreamLink::Events e;
  e.opened = [this, generation] {
    asio::post(*ioc_, [this, generation] { on_opened(generation); });
  };
  e.message = [this, generation](std::string text, bool binary, bool newer_waiting) {
    bytes_ += text.size();
    asio::post(*ioc_, [this, generation, binary, newer_waiting, text = std::move(text)]() mutable {
      on_main(generation, std::move(text), binary, newer_waiting);
    });
  };
  e.closed = [this, generation](std::string why) {
    asio::post(*ioc_,
               [this, generation, why = std::move(why)] { on_main_closed(generation, why); });
  };
  return e;
}

void RelayWorld::start() {
  observe_->log(LogLevel::info, "relaying", {{"upstream", url_.text()}});
  connect();
}

void RelayWorld::stop() {
  stopped_ = true;
  retry_->cancel();
  pace_timer_->cancel();
  if (main_) main_->close();
}

protocol::Welcome RelayWorld::welcome(std::uint64_t session, protocol::Role role) const {
  protocol::Welcome w = welcome_.value_or(protocol::Welcome{});
  w.server = std::string(kServerName);
  w.session = session;
  w.role = role;
  w.tick = counters_->tick;
  w.max_message_bytes = static_cast<std::uint32_t>(settings_.max_message_bytes);
  w.upstream = live_ ? "connected" : "reconnecting";
  return w;
}

Health RelayWorld::health() const {
  return {200, "{\"status\":\"ok\",\"tick\":" + std::to_string(counters_->tick.load()) +
                   ",\"upstream\":\"" + (live_ ? "connected" : "reconnecting") + "\"}\n"};
}

void RelayWorld::add_metrics(MetricsView& m) const {
  m.relay = true;
  m.relay_connected = connected_ ? 1 : 0;
  m.relay_connects = connects_;
  m.relay_snapshots = snapshots_;
  m.relay_bytes = bytes_;
  m.relay_skipped = skipped_;
  m.relay_command_links = commanding_ ? 1 : 0;  // the one link, when it may command
}

// ---- the link ----------------------------------------------------------------------------------

void RelayWorld::connect() {
  if (stopped_) return;
  main_generation_ = next_generation_++;
  link_frames_.reset();  // a new session upstream: its first frame is a keyframe
  const protocol::Role role =
      settings_.commands ? protocol::Role::commander : protocol::Role::viewer;
  main_ = UpstreamLink::open(
      *link_ioc_, url_,
      hello_text(role, settings_.token, std::string("herd-relay/") + HERD_VERSION,
                 settings_.link_format),
      events(main_generation_), UpstreamLink::Options{});
}

void RelayWorld::retry_later() {
  retry_->expires_after(next_backoff(backoff_));
  retry_->async_wait([this](boost::system::error_code ec) {
    if (!ec && !stopped_) connect();
  });
}

// The next message, as large as the world the upstream said it holds (its welcome first).
void RelayWorld::read_next() {
  if (!main_ || stopped_) return;
  main_->read_next(welcome_ ? max_snapshot_bytes(welcome_->max_agents) : max_welcome_bytes());
}

void RelayWorld::on_opened(std::uint64_t generation) {
  if (generation != main_generation_ || stopped_) return;
  refusal_.clear();
  linked_ = false;
  read_next();
}

void RelayWorld::on_main(std::uint64_t generation, std::string text, bool binary,
                         bool newer_waiting) {
  if (generation != main_generation_ || stopped_) return;
  if (binary) {
    on_binary(std::move(text), newer_waiting);
    return read_next();
  }
  const std::size_t values = text.empty() ? 0 : json_values(text);
  if (values > max_snapshot_values(welcome_ ? welcome_->max_agents : 0)) {
    // Within the size limit, but more values than any message of such a world holds: decoding
    // it would cost far more memory and time than its bytes (a frame of "{}," is 3 bytes a map).
    observe_->log(LogLevel::warn, "upstream_bad_message",
                  {{"reason", "a message of " + std::to_string(values) +
                                  " JSON values, more than a world of its size has"}});
  } else if (!text.empty()) {
    if (protocol::snapshot_tick(text)) {
      on_snapshot(std::move(text), newer_waiting);
    } else {
      auto decoded = protocol::decode_server(text);
      if (auto* err = std::get_if<protocol::Error>(&decoded)) {
        observe_->log(LogLevel::warn, "upstream_bad_message", {{"reason", err->message}});
      } else {
        auto& msg = std::get<protocol::ServerMessage>(decoded);
        if (std::holds_alternative<protocol::Snapshot>(msg)) {
          // Written otherwise than herd writes: decoded again.
          on_snapshot(std::move(text), newer_waiting);
        } else if (auto* w = std::get_if<protocol::Welcome>(&msg)) {
          on_welcome(std::move(*w));
        } else if (auto* ack = std::get_if<protocol::Ack>(&msg)) {
          on_answer(ack->seq, std::move(msg));
        } else if (auto* e = std::get_if<protocol::Error>(&msg); e && e->seq) {
          on_answer(*e->seq, std::move(msg));
        } else if (e) {
          if (!linked_ && e->code == protocol::ErrorCode::unauthorized) refusal_ = e->message;
          observe_->log(
              LogLevel::warn, "upstream_error",
              {{"code", std::string(protocol::to_string(e->code))}, {"message", e->message}});
        }
      }
    }
  }
  // Backpressure: the next message is read once this one was dealt with.
  read_next();
}

// A binary snapshot frame: decoded against the frames the link holds (a delta needs its
// baseline), acknowledged upstream so that the next is a delta on it, or answered with a keyframe
// request when it cannot be decoded (it then reaches no client).
void RelayWorld::on_binary(std::string frame, bool behind) {
  if (!welcome_) {
    observe_->log(LogLevel::warn, "upstream_bad_message",
                  {{"reason", "a binary frame before welcome"}});
    return;
  }
  auto bytes = std::make_shared<const std::string>(std::move(frame));
  protocol::BinaryClient::Received got = link_frames_.receive(*bytes);
  if (got.keyframe) {
    observe_->log(LogLevel::warn, "upstream_bad_message",
                  {{"reason", got.error + "; a keyframe was asked for"}});
    main_->send(share(protocol::encode(protocol::KeyframeRequest{})));
  }
  if (got.ack) main_->send(share(protocol::encode(protocol::SnapshotAck{*got.ack})));
  if (got.frame) on_snapshot(HeldFrame{std::move(bytes), std::move(*got.frame)}, behind);
}

void RelayWorld::on_welcome(protocol::Welcome w) {
  const bool first = !welcome_;
  const bool was_connected = connected_;
  // A welcome whose tick is below the newest snapshot's is a new world (a reset, another
  // scenario, or the upstream restarted from an older checkpoint): every baseline goes.
  const bool new_world = last_tick_ && w.tick < *last_tick_;
  if (!linked_) {
    // The link's own welcome: what it may do.
    linked_ = true;
    granted_ = w.role;
    commanding_ = granted_ == protocol::Role::commander;
    if (settings_.commands && !commanding_)
      observe_->log(LogLevel::warn, "upstream_refused_commands",
                    {{"upstream", url_.text()},
                     {"reason", refusal_.empty() ? "welcomed as a viewer" : refusal_}});
  }
  welcome_ = std::move(w);
  live_ = welcome_->upstream != "reconnecting";
  welcome_->upstream.clear();  // this relay's own state goes in its welcomes
  counters_->tick = welcome_->tick;
  // A snapshot that waits is of the world before this welcome.
  waiting_snapshot_.reset();
  // Relayed at a little over the upstream's snapshot rate, itself at most a server's tick rate.
  const double rate = std::clamp(welcome_->snapshot_rate, 1.0, 1000.0);
  if (rate != pace_rate_) {
    pace_rate_ = rate;
    pace_ = TokenBucket(rate * kPaceFactor + 1, kPaceBurst, seconds_now());
  }
  if (!was_connected) {
    connected_ = true;
    backoff_ = std::chrono::milliseconds(0);
    ++connects_;
    inspect_sent_.clear();
    inspect_dirty_ = true;
    observe_->log(LogLevel::info, "upstream_connected",
                  {{"upstream", url_.text()}, {"tick", std::to_string(welcome_->tick)}});
  }
  if (new_world) this->new_world();
  if (first) {
    for (const auto& h : std::exchange(waiting_, {})) greet(h.id, h.role, h.format);
  }
  hub_->send_welcomes(new_world);
  send_inspect();
}

void RelayWorld::on_answer(std::uint32_t link_seq, protocol::ServerMessage msg) {
  const auto it = pending_.find(link_seq);
  if (it == pending_.end()) {
    observe_->log(LogLevel::warn, "upstream_bad_message",
                  {{"reason", "an answer to seq " + std::to_string(link_seq) +
                                  ", which this relay did not send or was answered already"}});
    return;
  }
  const Pending p = it->second;
  pending_.erase(it);
  std::string text;
  if (auto* ack = std::get_if<protocol::Ack>(&msg)) {
    ack->seq = p.seq;
    ++counters_->commands_accepted;
    text = protocol::encode(*ack);
  } else {
    auto& err = std::get<protocol::Error>(msg);
    err.seq = p.seq;
    ++counters_->commands_rejected;
    observe_->count_error(err.code);
    text = protocol::encode(err);
  }
  if (hub_->has(p.client)) hub_->reply(p.client, share(std::move(text)));
}

void RelayWorld::on_main_closed(std::uint64_t generation, const std::string& why) {
  if (generation != main_generation_ || stopped_) return;
  main_.reset();
  linked_ = false;
  commanding_ = false;
  waiting_snapshot_.reset();
  for (const auto& [link_seq, p] : std::exchange(pending_, {}))
    if (hub_->has(p.client))
      refuse(p.client, p.seq, protocol::ErrorCode::upstream_unavailable,
             "the link to the upstream server closed before it answered (" + why +
                 "); the command may have been applied");
  if (connected_) {
    connected_ = false;
    live_ = false;
    observe_->log(LogLevel::warn, "upstream_lost", {{"upstream", url_.text()}, {"reason", why}});
    hub_->send_welcomes(false);  // the same world, now "reconnecting"
  } else if (backoff_ == std::chrono::milliseconds(0) || backoff_ >= kRetryMax) {
    observe_->log(LogLevel::warn, "upstream_unreachable",
                  {{"upstream", url_.text()}, {"reason", why}});
  }
  retry_later();
}

void RelayWorld::new_world() {
  hub_->finish_steps();
  hub_->new_world();
  plan_.new_world();  // the old world's density layer is no picture of the new one
  last_tick_.reset();
}

// Behind the upstream (a newer message already waits), a snapshot is not relayed, so that the relay
// catches up on the newest instead of serving a backlog late (a binary one was still decoded and
// acknowledged: the link's later deltas build on it).
void RelayWorld::on_snapshot(Incoming snapshot, bool behind) {
  if (!welcome_) {
    observe_->log(LogLevel::warn, "upstream_bad_message",
                  {{"reason", "a snapshot before welcome"}});
    return;
  }
  if (behind) {
    ++skipped_;
    return;
  }
  if (pace_.take(seconds_now())) return relay(std::move(snapshot));
  // Over the pace: this one waits, replacing (dropping) one that waited, until a token comes.
  waiting_snapshot_ = std::move(snapshot);
  if (pace_armed_) return;
  pace_armed_ = true;
  pace_timer_->expires_after(std::chrono::milliseconds(5));
  pace_timer_->async_wait([this](boost::system::error_code ec) {
    pace_armed_ = false;
    if (!ec && !stopped_) relay_waiting();
  });
}

void RelayWorld::relay_waiting() {
  if (!waiting_snapshot_) return;
  Incoming snapshot = std::move(*waiting_snapshot_);
  waiting_snapshot_.reset();
  on_snapshot(std::move(snapshot), false);
}

namespace {

// A JSON snapshot's text decoded, or why it is none.
std::variant<protocol::Snapshot, std::string> decode_snapshot(const std::string& text) {
  auto decoded = protocol::decode_server(text);
  auto* message = std::get_if<protocol::ServerMessage>(&decoded);
  auto* snapshot = message ? std::get_if<protocol::Snapshot>(message) : nullptr;
  if (snapshot) return std::move(*snapshot);
  return message ? std::string("a snapshot that is not one")
                 : "a snapshot that does not decode: " + std::get<protocol::Error>(decoded).message;
}

}  // namespace

// Decoded before any client sees it, and written again: a message that is not a valid snapshot
// reaches no client.
void RelayWorld::relay(Incoming incoming) {
  HeldFrame* held = std::get_if<HeldFrame>(&incoming);
  protocol::BinaryFrame* frame = held ? &held->frame : nullptr;
  auto decoded =
      held ? protocol::to_snapshot(held->frame) : decode_snapshot(std::get<std::string>(incoming));
  if (auto* why = std::get_if<std::string>(&decoded)) {
    observe_->log(LogLevel::warn, "upstream_bad_message", {{"reason", *why}});
    return;
  }
  protocol::Snapshot& s = std::get<protocol::Snapshot>(decoded);
  if (welcome_->max_agents != 0 && s.agents.size() > welcome_->max_agents) {
    observe_->log(LogLevel::warn, "upstream_bad_message",
                  {{"reason", "a snapshot of more agents than the welcome's max_agents"}});
    return;
  }
  const std::uint64_t tick = s.tick;
  if (last_tick_ && tick <= *last_tick_) new_world();  // time went back without a welcome
  last_tick_ = tick;
  ++snapshots_;
  // Its serial is the upstream's, in the text. The last snapshot's frames not yet encoded may make
  // it late by half the upstream's interval (pace_rate_: its snapshot rate, from the welcome), no
  // more.
  const std::uint64_t made =
      hub_->begin_snapshot(std::chrono::nanoseconds(static_cast<std::int64_t>(0.5e9 / pace_rate_)));
  counters_->tick = tick;
  welcome_->tick = tick;
  // The traces are those of every agent this relay's clients inspect: each client is sent its
  // own (Hub), the shared text none.
  protocol::InspectTexts inspect = protocol::InspectTexts::of(s);
  s.inspect.clear();
  // The parts that reach only the sessions that ask are this relay's own (its link asks the
  // upstream for none), due as the plan says for its clients that ask: the density layer, made
  // from the snapshot's agents.
  s.density.reset();
  const publish::SnapshotParts own =
      plan_.relayed(made, welcome_->snapshot_rate, {hub_->density_asked(), false});
  if (own.density)
    hub_->attach_density(
        protocol::density_layer(s.agents, welcome_->world.width, welcome_->world.height));
  // Whether an `auto` session takes binary is decided on the last snapshot's agent count.
  Hub::BinaryTakers binary = hub_->send_json(
      counters_->agents, [&] { return share(protocol::encode(s)); }, std::move(inspect));
  counters_->agents = s.agents.size();
  publish::SnapshotPlan::keep_for_welcome(s, *welcome_);
  if (!binary.empty()) {
    const protocol::WorldInfo size = welcome_->world;
    protocol::QuantState state;
    if (frame) {
      // The upstream's quantisation as it is: this relay's frames carry the same values.
      state.tick = frame->header.tick;
      state.time = frame->header.time;
      state.avoidance = frame->header.avoidance;
      state.x_bits = frame->header.x_bits;
      state.y_bits = frame->header.y_bits;
      state.scale = frame->header.scale;  // the link's hello asks for the finest (the default)
      state.agents = std::move(frame->agents);
    } else {
      state = protocol::quantise(s.tick, s.time, s.avoidance, size.width, size.height, s.agents,
                                 hub_->binary_feed().current());
    }
    state.serial = s.serial;
    protocol::SideOpen side = side_open(s);
    hub_->binary_feed().begin(std::move(state), side.shared());
    hub_->send_binary(std::move(binary), std::move(side.open));
  }
  send_inspect();
}

void RelayWorld::send_inspect() {
  if (!inspect_dirty_ || !connected_ || !main_) return;
  std::vector<std::uint32_t> ids = hub_->inspected();
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > protocol::kMaxInspectPerSession) ids.resize(protocol::kMaxInspectPerSession);
  if (ids == inspect_sent_) {
    inspect_dirty_ = false;
    return;
  }
  // The link's rate is shared with commands: over it, the list waits for a later snapshot.
  if (!link_rate_->take(seconds_now())) return;
  inspect_dirty_ = false;
  inspect_sent_ = ids;
  main_->send(share(protocol::encode(protocol::Inspect{std::move(ids)})));
}

// ---- commanders ---------------------------------------------------------------------------------

void RelayWorld::hello(std::uint64_t id, Hello hello) {
  // The session checked the token (this relay's sessions ask for the one it presents upstream);
  // no hello opens anything upstream.
  if (!welcome_) return waiting_.push_back({id, hello.role, hello.format});
  greet(id, hello.role, hello.format);
}

void RelayWorld::greet(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format) {
  if (!hub_->has(id)) return;
  if (role == protocol::Role::commander && granted_ != protocol::Role::commander) {
    // The relay may not command upstream: its commanders watch, told why first.
    observe_->count_error(protocol::ErrorCode::unauthorized);
    hub_->tell(id,
               share(protocol::encode(protocol::Error{
                   {},
                   protocol::ErrorCode::unauthorized,
                   settings_.commands ? "the upstream server did not let this relay command "
                                        "(its command token was refused); welcomed as a viewer"
                                      : "this relay only watches its upstream server (it has no "
                                        "command token for it); welcomed as a viewer"})));
    role = protocol::Role::viewer;
  }
  hub_->greet(id, role, format);
}

std::optional<std::uint32_t> RelayWorld::admit(std::uint64_t id, std::uint32_t seq) {
  if (!main_ || !linked_) {
    refuse(id, seq, protocol::ErrorCode::upstream_unavailable,
           "the relay is reconnecting to its upstream server; the command was not sent");
    return std::nullopt;
  }
  if (granted_ != protocol::Role::commander) {
    refuse(id, seq, protocol::ErrorCode::upstream_unavailable,
           "the upstream server no longer lets this relay command; the command was not sent");
    return std::nullopt;
  }
  if (pending_.size() >= kMaxPending) {
    refuse(id, seq, protocol::ErrorCode::upstream_unavailable,
           "too many commands wait for the upstream server's answers; the command was not sent");
    return std::nullopt;
  }
  if (!link_rate_->take(seconds_now())) {
    refuse(id, seq, protocol::ErrorCode::rate_limited,
           "the relay's link to its upstream server, shared by its commanders, is over its "
           "message rate; the command was not sent");
    return std::nullopt;
  }
  while (pending_.contains(next_seq_)) ++next_seq_;
  const std::uint32_t link_seq = next_seq_++;
  pending_.emplace(link_seq, Pending{id, seq});
  return link_seq;
}

void RelayWorld::command(std::uint64_t id, const protocol::CommandMsg& command) {
  if (const auto link_seq = admit(id, command.seq))
    main_->send(share(protocol::encode(protocol::CommandMsg{*link_seq, command.command})));
}

void RelayWorld::control(std::uint64_t id, const protocol::ControlMsg& control) {
  if (const auto link_seq = admit(id, control.seq))
    main_->send(share(protocol::encode(protocol::ControlMsg{*link_seq, control.control})));
}

void RelayWorld::refuse(std::uint64_t id, std::uint32_t seq, protocol::ErrorCode code,
                        std::string message) {
  observe_->count_error(code);
  ++counters_->commands_rejected;
  hub_->reply(id, share(protocol::encode(protocol::Error{seq, code, std::move(message)})));
}

void RelayWorld::left(std::uint64_t id) {
  std::erase_if(waiting_, [id](const WaitingHello& h) { return h.id == id; });
  // Its commands still waiting are answered to nobody (hub_->has is false by then).
}

}  // namespace herd::net
