// The hub's relay mode: links to the upstream server, and serving its world (relay.hpp).
#include "net/relay.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <random>

#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::net {
namespace {

std::string hello_text(protocol::Role role, std::string token, std::string client, protocol::SnapshotFormat format) {
  protocol::Hello h;
  h.role = role;
  h.token = std::move(token);
  h.client = std::move(client);
  if (h.client.size() > protocol::kMaxClientNameBytes) h.client.resize(protocol::kMaxClientNameBytes);
  h.format = format;
  return protocol::encode(h);
}

// The next pause before a retry: doubled within [kRetryMin, kRetryMax], then jittered by up to a
// quarter either way, so relays that lost the same server do not all come back at once.
std::chrono::milliseconds next_backoff(std::chrono::milliseconds& backoff) {
  using R = Server::Impl::Relay;
  backoff = std::clamp(backoff * 2, R::kRetryMin, R::kRetryMax);
  static thread_local std::minstd_rand jitter{std::random_device{}()};
  const auto quarter = backoff.count() / 4;
  return std::chrono::milliseconds(backoff.count() - quarter + static_cast<long>(jitter() % (2 * quarter + 1)));
}

// The side section of a binary frame (PROTOCOL.md "Side section") from a whole JSON snapshot:
// the inspected agents' whole objects and everything but the other agents; empty when it would
// say nothing.
std::string side_of(const protocol::Snapshot& s) {
  protocol::Snapshot side;
  side.tick = s.tick;
  side.time = s.time;
  side.avoidance = s.avoidance;
  side.serial = s.serial;
  for (const protocol::InspectState& trace : s.inspect) {
    const auto it = std::lower_bound(s.agents.begin(), s.agents.end(), trace.id,
                                     [](const protocol::AgentState& a, std::uint32_t id) { return a.id < id; });
    if (it != s.agents.end() && it->id == trace.id) side.agents.push_back(*it);
  }
  side.obstacles = s.obstacles;
  side.collisions = s.collisions;
  side.inspect = s.inspect;
  side.formations = s.formations;
  side.map = s.map;
  side.map_cleared = s.map_cleared;
  if (side.agents.empty() && side.obstacles.empty() && side.collisions.empty() && side.formations.empty() && !side.map &&
      !side.map_cleared)
    return {};
  return protocol::encode(side);
}

}  // namespace

UpstreamLink::Events Server::Impl::relay_events(std::uint64_t generation, std::optional<std::uint64_t> commander) {
  // Called on the link's I/O thread: each event is posted to the hub's thread.
  UpstreamLink::Events e;
  if (commander) {
    const std::uint64_t id = *commander;
    e.opened = [this, id, generation] { asio::post(ioc, [this, id, generation] { relay_on_command_opened(id, generation); }); };
    e.message = [this, id, generation](std::string text, bool binary) {
      if (binary) return;  // the link's own snapshots: a viewport outside the world, never read
      asio::post(ioc, [this, id, generation, text = std::move(text)]() mutable { relay_on_command(id, generation, std::move(text)); });
    };
    e.closed = [this, id, generation](std::string why) {
      asio::post(ioc, [this, id, generation, why = std::move(why)] { relay_on_command_closed(id, generation, why); });
    };
  } else {
    e.message = [this, generation](std::string text, bool binary) {
      if (binary) return;  // asked for JSON
      relay->bytes += text.size();
      asio::post(ioc, [this, generation, text = std::move(text)]() mutable { relay_on_main(generation, std::move(text)); });
    };
    e.closed = [this, generation](std::string why) {
      asio::post(ioc, [this, generation, why = std::move(why)] { relay_on_main_closed(generation, why); });
    };
  }
  return e;
}

void Server::Impl::relay_start() {
  log(LogLevel::info, "relaying", {{"upstream", relay->url.text()}});
  relay_connect();
}

void Server::Impl::relay_connect() {
  if (stopping) return;
  Relay& r = *relay;
  r.main_generation = r.next_generation++;
  UpstreamLink::Options options;
  r.main = UpstreamLink::open(shards.front()->ioc, r.url,
                              hello_text(protocol::Role::viewer, {}, std::string("herd-relay/") + HERD_VERSION, protocol::SnapshotFormat::json),
                              relay_events(r.main_generation, std::nullopt), options);
}

void Server::Impl::relay_retry_later() {
  Relay& r = *relay;
  r.retry.expires_after(next_backoff(r.backoff));
  r.retry.async_wait([this](boost::system::error_code ec) {
    if (!ec && !stopping) relay_connect();
  });
}

void Server::Impl::relay_stop() {
  Relay& r = *relay;
  r.retry.cancel();
  if (r.main) r.main->close();
  for (auto& [id, c] : r.commanders) {
    if (c.link) c.link->close();
    if (c.retry) c.retry->cancel();
  }
}

void Server::Impl::relay_on_main(std::uint64_t generation, std::string text) {
  Relay& r = *relay;
  if (generation != r.main_generation || stopping) return;
  // JSON sessions get the text before it is decoded for the binary ones.
  if (const auto tick = protocol::snapshot_tick(text)) return relay_snapshot(std::move(text), *tick);
  auto decoded = protocol::decode_server(text);
  if (auto* err = std::get_if<protocol::Error>(&decoded)) {
    log(LogLevel::warn, "upstream_bad_message", {{"reason", err->message}});
    return;
  }
  auto& msg = std::get<protocol::ServerMessage>(decoded);
  if (auto* snapshot = std::get_if<protocol::Snapshot>(&msg)) return relay_snapshot(std::move(text), snapshot->tick);
  if (auto* w = std::get_if<protocol::Welcome>(&msg)) {
    const bool first = !r.welcome;
    const bool was_connected = r.connected;
    // A welcome whose tick is below the newest snapshot's is a new world (a reset, another
    // scenario, or the upstream restarted from an older checkpoint): every baseline goes.
    const bool new_world = r.last_tick && w->tick < *r.last_tick;
    r.welcome = std::move(*w);
    r.live = r.welcome->upstream != "reconnecting";
    r.welcome->upstream.clear();  // this relay's own state goes in its welcomes
    counters.tick = r.welcome->tick;
    if (!was_connected) {
      r.connected = true;
      r.backoff = std::chrono::milliseconds(0);
      ++r.connects;
      r.inspect_sent.clear();
      r.inspect_dirty = true;
      log(LogLevel::info, "upstream_connected", {{"upstream", r.url.text()}, {"tick", std::to_string(r.welcome->tick)}});
    }
    if (new_world) relay_new_world();
    if (first) {
      for (const auto& h : std::exchange(r.waiting, {})) {
        if (h.role == protocol::Role::viewer) hello(h.id, h.role, h.format);
        else relay_finish_hello(h.id);
      }
    }
    send_welcomes(new_world);
    relay_send_inspect();
    return;
  }
  if (auto* err = std::get_if<protocol::Error>(&msg))
    log(LogLevel::warn, "upstream_error", {{"code", std::string(protocol::to_string(err->code))}, {"message", err->message}});
}

void Server::Impl::relay_on_main_closed(std::uint64_t generation, const std::string& why) {
  Relay& r = *relay;
  if (generation != r.main_generation || stopping) return;
  r.main.reset();
  if (r.connected) {
    r.connected = false;
    r.live = false;
    log(LogLevel::warn, "upstream_lost", {{"upstream", r.url.text()}, {"reason", why}});
    send_welcomes(false);  // the same world, now "reconnecting"
  } else if (r.backoff == std::chrono::milliseconds(0) || r.backoff >= Relay::kRetryMax) {
    log(LogLevel::warn, "upstream_unreachable", {{"upstream", r.url.text()}, {"reason", why}});
  }
  relay_retry_later();
}

void Server::Impl::relay_new_world() {
  finish_steps();
  binary_feed.clear();
  for (auto& shard : shards) counters.snapshots_superseded += shard->outbox.drop_frames();
  for (auto& [id, c] : clients) {
    c.inbox->clear();
    c.binary.reset();
  }
  relay->last_tick.reset();
}

void Server::Impl::relay_snapshot(std::string text, std::uint64_t tick) {
  Relay& r = *relay;
  if (r.last_tick && tick <= *r.last_tick) relay_new_world();  // time went back without a welcome
  r.last_tick = tick;
  ++r.snapshots;
  finish_steps();  // the last snapshot's frames first
  ++snapshots_made;
  counters.tick = tick;
  if (r.welcome) r.welcome->tick = tick;
  // JSON sessions get the upstream's text as it came, before anything else is done with it.
  // Whether an `auto` session takes binary is decided on the last snapshot's agent count.
  std::vector<std::vector<Delivery>> by_shard(shards.size());
  const SharedText json = share(std::move(text));
  std::vector<std::uint64_t> commanders, viewers;
  for (auto& [id, c] : clients) {
    if (!c.greeted) continue;
    if (c.wants_binary(counters.agents)) {
      (c.role == protocol::Role::commander ? commanders : viewers).push_back(id);
      continue;
    }
    by_shard[c.shard->index].push_back(Delivery::snapshot(c.session, json, false));
  }
  hand_over(by_shard);
  auto decoded = protocol::decode_server(*json);
  auto* message = std::get_if<protocol::ServerMessage>(&decoded);
  auto* snapshot = message ? std::get_if<protocol::Snapshot>(message) : nullptr;
  if (!snapshot) {
    log(LogLevel::warn, "upstream_bad_message", {{"reason", "a snapshot that does not decode"}});
    return;
  }
  const protocol::Snapshot& s = *snapshot;
  counters.agents = s.agents.size();
  if (r.welcome) {
    if (s.map) r.welcome->map = s.map;
    if (s.map_cleared) r.welcome->map.reset();
  }
  if (!commanders.empty() || !viewers.empty()) {
    const protocol::WorldInfo size = r.welcome ? r.welcome->world : protocol::WorldInfo{};
    protocol::QuantState state =
        protocol::quantise(s.tick, s.time, s.avoidance, size.width, size.height, s.agents, binary_feed.current());
    state.serial = s.serial;
    binary_feed.begin(std::move(state), side_of(s));
    send_binary(commanders, 0, commanders.size());
    send_binary_in_steps(std::move(viewers));
  }
  relay_send_inspect();
}

void Server::Impl::relay_send_inspect() {
  Relay& r = *relay;
  if (!r.inspect_dirty || !r.connected || !r.main) return;
  std::vector<std::uint32_t> ids;
  for (auto& [id, c] : clients) ids.insert(ids.end(), c.inspect.begin(), c.inspect.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > protocol::kMaxInspectPerSession) ids.resize(protocol::kMaxInspectPerSession);
  r.inspect_dirty = false;
  if (ids == r.inspect_sent) return;
  r.inspect_sent = ids;
  r.main->send(share(protocol::encode(protocol::Inspect{std::move(ids)})));
}

protocol::Welcome Server::Impl::relay_welcome(std::uint64_t session, protocol::Role role) const {
  protocol::Welcome w = relay->welcome.value_or(protocol::Welcome{});
  w.server = std::string(kServerName);
  w.session = session;
  w.role = role;
  w.tick = counters.tick;
  w.max_message_bytes = static_cast<std::uint32_t>(config.max_message_bytes);
  w.upstream = relay->live ? "connected" : "reconnecting";
  return w;
}

// ---- commanders ---------------------------------------------------------------------------------

void Server::Impl::relay_hello(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format, std::string token,
                               std::string client) {
  Relay& r = *relay;
  if (!clients.count(id)) return;
  if (role == protocol::Role::commander) {
    Relay::Commander& c = r.commanders[id];
    // The link's own snapshots are binary, limited to a viewport outside every world, never
    // acknowledged: each is a header and the side section, the least the protocol allows.
    c.hello = hello_text(role, std::move(token), "herd-relay:" + client, protocol::SnapshotFormat::binary);
    c.format = format;
    ++r.command_links;
    relay_open_command_link(id);
  }
  if (!r.welcome) return r.waiting.push_back({id, role, format});
  if (role == protocol::Role::viewer) hello(id, role, format);
}

void Server::Impl::relay_open_command_link(std::uint64_t id) {
  Relay& r = *relay;
  const auto it = r.commanders.find(id);
  if (it == r.commanders.end() || stopping) return;
  Relay::Commander& c = it->second;
  c.generation = r.next_generation++;
  c.state = Relay::Commander::State::connecting;
  c.link = UpstreamLink::open(shards.front()->ioc, r.url, c.hello, relay_events(c.generation, id), UpstreamLink::Options{});
}

void Server::Impl::relay_on_command_opened(std::uint64_t id, std::uint64_t generation) {
  const auto it = relay->commanders.find(id);
  if (it == relay->commanders.end() || it->second.generation != generation) return;
  constexpr double kFar = -protocol::kMaxViewportCoordinate;
  it->second.link->send(share(protocol::encode(protocol::ViewportMsg{protocol::Viewport{kFar, kFar, kFar + 1, kFar + 1}})));
}

void Server::Impl::relay_on_command(std::uint64_t id, std::uint64_t generation, std::string text) {
  const auto it = relay->commanders.find(id);
  if (it == relay->commanders.end() || it->second.generation != generation) return;
  Relay::Commander& c = it->second;
  auto decoded = protocol::decode_server(text);
  if (std::holds_alternative<protocol::Error>(decoded)) return;
  auto& msg = std::get<protocol::ServerMessage>(decoded);
  if (auto* w = std::get_if<protocol::Welcome>(&msg)) {
    if (c.state == Relay::Commander::State::open) return;  // a re-welcome: the main link tells those
    c.state = Relay::Commander::State::open;
    c.backoff = std::chrono::milliseconds(0);
    c.granted = w->role;
    if (!c.welcomed) relay_finish_hello(id);  // once the main link knows the world too
    for (auto& [seq, command] : std::exchange(c.queued, {})) {
      c.in_flight.push_back(seq);
      c.link->send(share(std::move(command)));
    }
    return;
  }
  const bool answer = std::holds_alternative<protocol::Ack>(msg) ||
                      (std::holds_alternative<protocol::Error>(msg) && std::get<protocol::Error>(msg).seq);
  if (answer && !c.in_flight.empty()) {
    c.in_flight.pop_front();
    (std::holds_alternative<protocol::Ack>(msg) ? counters.commands_accepted : counters.commands_rejected)++;
    return reply(id, share(std::move(text)));
  }
  // An error before the welcome (unauthorized: the session will watch): told before the welcome.
  if (auto* err = std::get_if<protocol::Error>(&msg); err && !c.welcomed) c.refusal = std::move(text);
}

void Server::Impl::relay_on_command_closed(std::uint64_t id, std::uint64_t generation, const std::string& why) {
  Relay& r = *relay;
  const auto it = r.commanders.find(id);
  if (it == r.commanders.end() || it->second.generation != generation || stopping) return;
  Relay::Commander& c = it->second;
  c.state = Relay::Commander::State::down;
  c.link.reset();
  auto fail = [&](std::uint32_t seq, std::string message) {
    count_error(protocol::ErrorCode::upstream_unavailable);
    ++counters.commands_rejected;
    reply(id, share(protocol::encode(protocol::Error{seq, protocol::ErrorCode::upstream_unavailable, std::move(message)})));
  };
  for (const std::uint32_t seq : std::exchange(c.in_flight, {}))
    fail(seq, "the link to the upstream server closed before it answered (" + why + "); the command may have been applied");
  for (auto& [seq, text] : std::exchange(c.queued, {}))
    fail(seq, "the upstream server could not be reached (" + why + "); the command was not sent");
  if (!c.welcomed) relay_finish_hello(id);  // as asked, or when the main link knows the world
  if (!c.retry) c.retry = std::make_unique<asio::steady_timer>(ioc);
  c.retry->expires_after(next_backoff(c.backoff));
  c.retry->async_wait([this, id](boost::system::error_code ec) {
    if (!ec) relay_open_command_link(id);
  });
}

// Answers a commander's hello once the relay knows the world and the link said what the token
// grants (or could not be made: the session is then welcomed as it asked and its commands get
// upstream_unavailable until the link is made).
void Server::Impl::relay_finish_hello(std::uint64_t id) {
  Relay& r = *relay;
  const auto it = r.commanders.find(id);
  if (it == r.commanders.end() || it->second.welcomed || !r.welcome) return;
  Relay::Commander& c = it->second;
  if (c.state == Relay::Commander::State::connecting) return;
  c.welcomed = true;
  const auto client = clients.find(id);
  if (client == clients.end()) return;
  if (!c.refusal.empty())
    client->second.shard->deliver(Delivery::message(Delivery::Kind::control, client->second.session, share(std::exchange(c.refusal, {}))));
  hello(id, c.granted.value_or(protocol::Role::commander), c.format);
}

void Server::Impl::relay_forward(std::uint64_t id, std::uint32_t seq, std::string text) {
  Relay& r = *relay;
  auto refuse = [&](std::string message) {
    count_error(protocol::ErrorCode::upstream_unavailable);
    ++counters.commands_rejected;
    reply(id, share(protocol::encode(protocol::Error{seq, protocol::ErrorCode::upstream_unavailable, std::move(message)})));
  };
  const auto it = r.commanders.find(id);
  if (it == r.commanders.end()) return refuse("this session has no link to the upstream server");
  Relay::Commander& c = it->second;
  switch (c.state) {
    case Relay::Commander::State::open:
      c.in_flight.push_back(seq);
      c.link->send(share(std::move(text)));
      return;
    case Relay::Commander::State::connecting:
      if (c.queued.size() >= Relay::kMaxQueuedCommands) return refuse("too many commands wait for the link to the upstream server");
      c.queued.emplace_back(seq, std::move(text));
      return;
    case Relay::Commander::State::down:
      return refuse("the relay is reconnecting to its upstream server; the command was not sent");
  }
}

void Server::Impl::relay_leave(std::uint64_t id) {
  Relay& r = *relay;
  std::erase_if(r.waiting, [id](const Relay::WaitingHello& h) { return h.id == id; });
  const auto it = r.commanders.find(id);
  if (it == r.commanders.end()) return;
  if (it->second.link) it->second.link->close();
  if (it->second.retry) it->second.retry->cancel();
  r.commanders.erase(it);
  --r.command_links;
}

}  // namespace herd::net
