#include "net/relay_upstream.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <random>

#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::net {
namespace {

// Pauses before a new attempt after a link is lost or could not be made: doubling, jittered.
constexpr std::chrono::milliseconds kRetryMin{250}, kRetryMax{5000};
// Commands a commander may send while its link is being made; more get upstream_unavailable.
constexpr std::size_t kMaxQueuedCommands = 64;

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
    const auto it =
        std::lower_bound(s.agents.begin(), s.agents.end(), trace.id,
                         [](const protocol::AgentState& a, std::uint32_t id) { return a.id < id; });
    if (it != s.agents.end() && it->id == trace.id) side.agents.push_back(*it);
  }
  side.obstacles = s.obstacles;
  side.collisions = s.collisions;
  side.inspect = s.inspect;
  side.formations = s.formations;
  side.map = s.map;
  side.map_cleared = s.map_cleared;
  if (side.agents.empty() && side.obstacles.empty() && side.collisions.empty() &&
      side.formations.empty() && !side.map && !side.map_cleared)
    return {};
  return protocol::encode(side);
}

}  // namespace

RelayUpstream::RelayUpstream(UpstreamUrl url, std::size_t max_message_bytes, asio::io_context& ioc,
                             asio::io_context& link_ioc, Hub& hub, Observability& observe)
    : url_(std::move(url)),
      max_message_bytes_(max_message_bytes),
      ioc_(ioc),
      link_ioc_(link_ioc),
      hub_(hub),
      observe_(observe),
      retry_(ioc) {}

UpstreamLink::Events RelayUpstream::events(std::uint64_t generation,
                                           std::optional<std::uint64_t> commander) {
  // Called on the link's I/O thread: each event is posted to the hub's thread.
  UpstreamLink::Events e;
  if (commander) {
    const std::uint64_t id = *commander;
    e.opened = [this, id, generation] {
      asio::post(ioc_, [this, id, generation] { on_command_opened(id, generation); });
    };
    e.message = [this, id, generation](std::string text, bool binary) {
      if (binary) return;  // the link's own snapshots: a viewport outside the world, never read
      asio::post(ioc_, [this, id, generation, text = std::move(text)]() mutable {
        on_command(id, generation, std::move(text));
      });
    };
    e.closed = [this, id, generation](std::string why) {
      asio::post(ioc_, [this, id, generation, why = std::move(why)] {
        on_command_closed(id, generation, why);
      });
    };
  } else {
    e.message = [this, generation](std::string text, bool binary) {
      if (binary) return;  // asked for JSON
      bytes_ += text.size();
      asio::post(ioc_, [this, generation, text = std::move(text)]() mutable {
        on_main(generation, std::move(text));
      });
    };
    e.closed = [this, generation](std::string why) {
      asio::post(ioc_,
                 [this, generation, why = std::move(why)] { on_main_closed(generation, why); });
    };
  }
  return e;
}

void RelayUpstream::start() {
  observe_.log(LogLevel::info, "relaying", {{"upstream", url_.text()}});
  connect();
}

void RelayUpstream::stop() {
  stopped_ = true;
  retry_.cancel();
  if (main_) main_->close();
  for (auto& [id, c] : commanders_) {
    if (c.link) c.link->close();
    if (c.retry) c.retry->cancel();
  }
}

protocol::Welcome RelayUpstream::welcome(std::uint64_t session, protocol::Role role) const {
  protocol::Welcome w = welcome_.value_or(protocol::Welcome{});
  w.server = std::string(kServerName);
  w.session = session;
  w.role = role;
  w.tick = counters_.tick;
  w.max_message_bytes = static_cast<std::uint32_t>(max_message_bytes_);
  w.upstream = live_ ? "connected" : "reconnecting";
  return w;
}

Health RelayUpstream::health() const {
  return {200, "{\"status\":\"ok\",\"tick\":" + std::to_string(counters_.tick.load()) +
                   ",\"upstream\":\"" + (live_ ? "connected" : "reconnecting") + "\"}\n"};
}

void RelayUpstream::add_metrics(MetricsView& m) const {
  m.relay = true;
  m.relay_connected = connected_ ? 1 : 0;
  m.relay_connects = connects_;
  m.relay_snapshots = snapshots_;
  m.relay_bytes = bytes_;
  m.relay_command_links = command_links_;
}

// ---- the main link: the upstream's world
// ---------------------------------------------------------

void RelayUpstream::connect() {
  if (stopped_) return;
  main_generation_ = next_generation_++;
  UpstreamLink::Options options;
  main_ = UpstreamLink::open(
      link_ioc_, url_,
      hello_text(protocol::Role::viewer, {}, std::string("herd-relay/") + HERD_VERSION,
                 protocol::SnapshotFormat::json),
      events(main_generation_, std::nullopt), options);
}

void RelayUpstream::retry_later() {
  retry_.expires_after(next_backoff(backoff_));
  retry_.async_wait([this](boost::system::error_code ec) {
    if (!ec && !stopped_) connect();
  });
}

void RelayUpstream::on_main(std::uint64_t generation, std::string text) {
  if (generation != main_generation_ || stopped_) return;
  // JSON sessions get the text before it is decoded for the binary ones.
  if (const auto tick = protocol::snapshot_tick(text)) return on_snapshot(std::move(text), *tick);
  auto decoded = protocol::decode_server(text);
  if (auto* err = std::get_if<protocol::Error>(&decoded)) {
    observe_.log(LogLevel::warn, "upstream_bad_message", {{"reason", err->message}});
    return;
  }
  auto& msg = std::get<protocol::ServerMessage>(decoded);
  if (auto* snapshot = std::get_if<protocol::Snapshot>(&msg))
    return on_snapshot(std::move(text), snapshot->tick);
  if (auto* w = std::get_if<protocol::Welcome>(&msg)) return on_welcome(std::move(*w));
  if (auto* err = std::get_if<protocol::Error>(&msg))
    observe_.log(
        LogLevel::warn, "upstream_error",
        {{"code", std::string(protocol::to_string(err->code))}, {"message", err->message}});
}

void RelayUpstream::on_welcome(protocol::Welcome w) {
  const bool first = !welcome_;
  const bool was_connected = connected_;
  // A welcome whose tick is below the newest snapshot's is a new world (a reset, another
  // scenario, or the upstream restarted from an older checkpoint): every baseline goes.
  const bool new_world = last_tick_ && w.tick < *last_tick_;
  welcome_ = std::move(w);
  live_ = welcome_->upstream != "reconnecting";
  welcome_->upstream.clear();  // this relay's own state goes in its welcomes
  counters_.tick = welcome_->tick;
  if (!was_connected) {
    connected_ = true;
    backoff_ = std::chrono::milliseconds(0);
    ++connects_;
    inspect_sent_.clear();
    inspect_dirty_ = true;
    observe_.log(LogLevel::info, "upstream_connected",
                 {{"upstream", url_.text()}, {"tick", std::to_string(welcome_->tick)}});
  }
  if (new_world) this->new_world();
  if (first) {
    for (const auto& h : std::exchange(waiting_, {})) {
      if (h.role == protocol::Role::viewer)
        hub_.greet(h.id, h.role, h.format);
      else
        finish_hello(h.id);
    }
  }
  hub_.send_welcomes(new_world);
  send_inspect();
}

void RelayUpstream::on_main_closed(std::uint64_t generation, const std::string& why) {
  if (generation != main_generation_ || stopped_) return;
  main_.reset();
  if (connected_) {
    connected_ = false;
    live_ = false;
    observe_.log(LogLevel::warn, "upstream_lost", {{"upstream", url_.text()}, {"reason", why}});
    hub_.send_welcomes(false);  // the same world, now "reconnecting"
  } else if (backoff_ == std::chrono::milliseconds(0) || backoff_ >= kRetryMax) {
    observe_.log(LogLevel::warn, "upstream_unreachable",
                 {{"upstream", url_.text()}, {"reason", why}});
  }
  retry_later();
}

void RelayUpstream::new_world() {
  hub_.finish_steps();
  hub_.new_world();
  last_tick_.reset();
}

void RelayUpstream::on_snapshot(std::string text, std::uint64_t tick) {
  if (last_tick_ && tick <= *last_tick_) new_world();  // time went back without a welcome
  last_tick_ = tick;
  ++snapshots_;
  hub_.begin_snapshot();  // its serial is the upstream's, in the text
  counters_.tick = tick;
  if (welcome_) welcome_->tick = tick;
  // JSON sessions get the upstream's text as it came, before anything else is done with it.
  // Whether an `auto` session takes binary is decided on the last snapshot's agent count.
  const SharedText json = share(std::move(text));
  Hub::BinaryTakers binary = hub_.send_json(counters_.agents, [&] { return json; });
  auto decoded = protocol::decode_server(*json);
  auto* message = std::get_if<protocol::ServerMessage>(&decoded);
  auto* snapshot = message ? std::get_if<protocol::Snapshot>(message) : nullptr;
  if (!snapshot) {
    observe_.log(LogLevel::warn, "upstream_bad_message",
                 {{"reason", "a snapshot that does not decode"}});
    return;
  }
  const protocol::Snapshot& s = *snapshot;
  counters_.agents = s.agents.size();
  if (welcome_) {
    if (s.map) welcome_->map = s.map;
    if (s.map_cleared) welcome_->map.reset();
  }
  if (!binary.empty()) {
    const protocol::WorldInfo size = welcome_ ? welcome_->world : protocol::WorldInfo{};
    protocol::QuantState state =
        protocol::quantise(s.tick, s.time, s.avoidance, size.width, size.height, s.agents,
                           hub_.binary_feed().current());
    state.serial = s.serial;
    hub_.binary_feed().begin(std::move(state), side_of(s));
    hub_.send_binary(std::move(binary));
  }
  send_inspect();
}

void RelayUpstream::send_inspect() {
  if (!inspect_dirty_ || !connected_ || !main_) return;
  std::vector<std::uint32_t> ids = hub_.inspected();
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > protocol::kMaxInspectPerSession) ids.resize(protocol::kMaxInspectPerSession);
  inspect_dirty_ = false;
  if (ids == inspect_sent_) return;
  inspect_sent_ = ids;
  main_->send(share(protocol::encode(protocol::Inspect{std::move(ids)})));
}

// ---- commanders ---------------------------------------------------------------------------------

void RelayUpstream::hello(std::uint64_t id, Hello hello) {
  if (hello.role == protocol::Role::commander) {
    Commander& c = commanders_[id];
    // The link's own snapshots are binary, limited to a viewport outside every world, never
    // acknowledged: each is a header and the side section, the least the protocol allows.
    c.hello = hello_text(hello.role, std::move(hello.token), "herd-relay:" + hello.client,
                         protocol::SnapshotFormat::binary);
    c.format = hello.format;
    ++command_links_;
    open_command_link(id);
  }
  if (!welcome_) return waiting_.push_back({id, hello.role, hello.format});
  if (hello.role == protocol::Role::viewer) hub_.greet(id, hello.role, hello.format);
}

// Commands and controls alike go upstream as the client wrote them, on the commander's link.
void RelayUpstream::command(std::uint64_t id, const protocol::CommandMsg& command,
                            std::string wire) {
  forward(id, command.seq, std::move(wire));
}

void RelayUpstream::control(std::uint64_t id, const protocol::ControlMsg& control,
                            std::string wire) {
  forward(id, control.seq, std::move(wire));
}

void RelayUpstream::open_command_link(std::uint64_t id) {
  const auto it = commanders_.find(id);
  if (it == commanders_.end() || stopped_) return;
  Commander& c = it->second;
  c.generation = next_generation_++;
  c.state = Commander::State::connecting;
  c.link = UpstreamLink::open(link_ioc_, url_, c.hello, events(c.generation, id),
                              UpstreamLink::Options{});
}

void RelayUpstream::on_command_opened(std::uint64_t id, std::uint64_t generation) {
  const auto it = commanders_.find(id);
  if (it == commanders_.end() || it->second.generation != generation) return;
  constexpr double kFar = -protocol::kMaxViewportCoordinate;
  it->second.link->send(share(
      protocol::encode(protocol::ViewportMsg{protocol::Viewport{kFar, kFar, kFar + 1, kFar + 1}})));
}

void RelayUpstream::on_command(std::uint64_t id, std::uint64_t generation, std::string text) {
  const auto it = commanders_.find(id);
  if (it == commanders_.end() || it->second.generation != generation) return;
  Commander& c = it->second;
  auto decoded = protocol::decode_server(text);
  if (std::holds_alternative<protocol::Error>(decoded)) return;
  auto& msg = std::get<protocol::ServerMessage>(decoded);
  if (auto* w = std::get_if<protocol::Welcome>(&msg)) {
    if (c.state == Commander::State::open) return;  // a re-welcome: the main link tells those
    c.state = Commander::State::open;
    c.backoff = std::chrono::milliseconds(0);
    c.granted = w->role;
    if (!c.welcomed) finish_hello(id);  // once the main link knows the world too
    for (auto& [seq, command] : std::exchange(c.queued, {})) {
      c.in_flight.push_back(seq);
      c.link->send(share(std::move(command)));
    }
    return;
  }
  const bool answer =
      std::holds_alternative<protocol::Ack>(msg) ||
      (std::holds_alternative<protocol::Error>(msg) && std::get<protocol::Error>(msg).seq);
  if (answer && !c.in_flight.empty()) {
    c.in_flight.pop_front();
    (std::holds_alternative<protocol::Ack>(msg) ? counters_.commands_accepted
                                                : counters_.commands_rejected)++;
    return hub_.reply(id, share(std::move(text)));
  }
  // An error before the welcome (unauthorized: the session will watch): told before the welcome.
  if (auto* err = std::get_if<protocol::Error>(&msg); err && !c.welcomed)
    c.refusal = std::move(text);
}

void RelayUpstream::on_command_closed(std::uint64_t id, std::uint64_t generation,
                                      const std::string& why) {
  const auto it = commanders_.find(id);
  if (it == commanders_.end() || it->second.generation != generation || stopped_) return;
  Commander& c = it->second;
  c.state = Commander::State::down;
  c.link.reset();
  for (const std::uint32_t seq : std::exchange(c.in_flight, {}))
    unavailable(id, seq,
                "the link to the upstream server closed before it answered (" + why +
                    "); the command may have been applied");
  for (auto& [seq, text] : std::exchange(c.queued, {}))
    unavailable(id, seq,
                "the upstream server could not be reached (" + why + "); the command was not sent");
  if (!c.welcomed) finish_hello(id);  // as asked, or when the main link knows the world
  if (!c.retry) c.retry = std::make_unique<asio::steady_timer>(ioc_);
  c.retry->expires_after(next_backoff(c.backoff));
  c.retry->async_wait([this, id](boost::system::error_code ec) {
    if (!ec) open_command_link(id);
  });
}

// Answers a commander's hello once the relay knows the world and the link said what the token
// grants (or could not be made: the session is then welcomed as it asked and its commands get
// upstream_unavailable until the link is made).
void RelayUpstream::finish_hello(std::uint64_t id) {
  const auto it = commanders_.find(id);
  if (it == commanders_.end() || it->second.welcomed || !welcome_) return;
  Commander& c = it->second;
  if (c.state == Commander::State::connecting) return;
  c.welcomed = true;
  if (!hub_.has(id)) return;
  if (!c.refusal.empty()) hub_.tell(id, share(std::exchange(c.refusal, {})));
  hub_.greet(id, c.granted.value_or(protocol::Role::commander), c.format);
}

void RelayUpstream::forward(std::uint64_t id, std::uint32_t seq, std::string wire) {
  const auto it = commanders_.find(id);
  if (it == commanders_.end())
    return unavailable(id, seq, "this session has no link to the upstream server");
  Commander& c = it->second;
  switch (c.state) {
    case Commander::State::open:
      c.in_flight.push_back(seq);
      c.link->send(share(std::move(wire)));
      return;
    case Commander::State::connecting:
      if (c.queued.size() >= kMaxQueuedCommands)
        return unavailable(id, seq, "too many commands wait for the link to the upstream server");
      c.queued.emplace_back(seq, std::move(wire));
      return;
    case Commander::State::down:
      return unavailable(
          id, seq, "the relay is reconnecting to its upstream server; the command was not sent");
  }
}

void RelayUpstream::unavailable(std::uint64_t id, std::uint32_t seq, std::string message) {
  observe_.count_error(protocol::ErrorCode::upstream_unavailable);
  ++counters_.commands_rejected;
  hub_.reply(id, share(protocol::encode(protocol::Error{
                     seq, protocol::ErrorCode::upstream_unavailable, std::move(message)})));
}

void RelayUpstream::left(std::uint64_t id) {
  std::erase_if(waiting_, [id](const WaitingHello& h) { return h.id == id; });
  const auto it = commanders_.find(id);
  if (it == commanders_.end()) return;
  if (it->second.link) it->second.link->close();
  if (it->second.retry) it->second.retry->cancel();
  commanders_.erase(it);
  --command_links_;
}

}  // namespace herd::net
