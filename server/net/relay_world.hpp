// herd::net::RelayWorld — the world source of a relay: a herd-server started with an upstream
// URL steps no world of its own. It watches the upstream server (or another relay) over one link,
// as one whole-world client, and serves its own clients from what comes. The link asks for
// snapshots in Settings::link_format, `auto` by default: JSON while the world is small, binary
// frames (acknowledged, deltas on what the link holds) once it holds more than 1,000 agents, so
// a crowd costs the link a tenth of its JSON bytes and the relay no JSON parse. Each JSON
// snapshot is decoded (a message that does not decode reaches no client) and written again by
// the protocol's encoder (a herd upstream's text byte for byte); each binary frame is decoded
// against the link's baselines, and its quantised agents are the state this relay's binary
// frames are encoded from (with this relay's own baselines, acks and viewports) as they are; its
// JSON clients are sent those agents dequantised. Welcomes are made from the upstream's.
//
// Commands go over that same link: it says hello as a commander with the relay's own credential
// (the command token it was given, which its own sessions also ask of their commanders, as a
// server does), and the relay's commanders' commands and controls are sent on it with sequence
// numbers of the link's own, so that two clients' `seq`s never collide; each answer is given back
// to the client that asked, with its `seq`. So the upstream's cost is one session per relay,
// whatever the relay's clients number and whatever they say in their hellos.
//
// The link is read one message at a time, each once the last was dealt with, and at most as large
// as a world can be (max_snapshot_bytes); snapshots are relayed at most a little faster than the
// upstream's snapshot rate, the newest replacing one that waits.
//
// Everything here runs on the hub's thread; the link runs on an I/O shard's thread and posts its
// events here, tagged with the link's generation so a replaced link's late events are ignored.
// Asio only (timers, and UpstreamLink's plain interface), no Beast.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "net/hub.hpp"
#include "net/limits.hpp"
#include "net/observability.hpp"
#include "net/source_parts.hpp"
#include "net/upstream_link.hpp"
#include "net/world_source.hpp"
#include "protocol/messages.hpp"
#include "protocol/snapshot_binary.hpp"
#include "publish/snapshot_plan.hpp"

namespace herd::net {

// Values a JSON text holds, in the terms of what decoding it costs: one for each ',', '{' and '['
// outside strings; a bound on the decoder's work and memory that a scan finds without decoding.
std::size_t json_values(std::string_view text);

// The largest message a relay reads from its upstream before the upstream's welcome: the
// welcome, whose map may be a whole tile map (sim::TileMapLimits::kMaxSide squared), with every
// obstacle and every wall (sim::WallLimits) a world may hold, and whose scenario list is short.
std::size_t max_welcome_bytes();
// The largest message a relay reads from its upstream after a welcome saying `max_agents`: the
// largest JSON snapshot such a world can make (every agent, formation and unreachable place at
// its widest, agents' histories at 32 tiles; sim::WorldDef's default 10,000 obstacles; every
// wall sim::WallLimits allows; the most collisions a snapshot lists; 16 inspected agents with
// 1,000 pushes each; a whole tile map), plus a quarter. A welcome's max_agents of 0 counts as
// sim::WorldDef's default, and more than sim::WorldDefLimits::kMaxAgents as that.
std::size_t max_snapshot_bytes(std::uint32_t max_agents);
// The most JSON values (',', '{' and '[' outside strings) a message from the upstream may hold,
// counted the same way for such a snapshot: more is dropped undecoded, since decoding costs
// memory and time by the value, not by the byte.
std::size_t max_snapshot_values(std::uint32_t max_agents);

class RelayWorld final : public WorldSource {
 public:
  struct Settings {
    std::size_t max_message_bytes = protocol::kMaxMessageBytes;  // this relay's own, told clients
    // The link's hello: the token presented upstream (the relay's own commanders present it here
    // too), and whether the link asks to command at all (false: it watches, and this relay's
    // commanders are welcomed as viewers).
    std::string token;
    bool commands = true;
    // The link's message rate, shared by every commander of the relay and the relay's inspect
    // lists: kept under the upstream's per-session limit (the relay's own, by default the same).
    double rate_limit = 30, rate_burst = 60;
    // The snapshots the link asks for (its hello's `format`).
    protocol::SnapshotFormat link_format = protocol::SnapshotFormat::automatic;
  };

  // What main chooses of the link (--relay, its token, --relay-link-format); the rest of
  // Settings is the server's (attach): its message limit, its rate limit, its command token.
  struct Link {
    bool commands = true;  // false: the link only watches (Settings::commands)
    protocol::SnapshotFormat format = protocol::SnapshotFormat::automatic;
  };

  // ws://HOST[:PORT][/PATH] of the server (or relay) whose world this one serves: the URL, or a
  // sentence saying why not (wss:// is refused: a relay links in the clear, beside its upstream).
  static std::variant<UpstreamUrl, std::string> parse_url(const std::string& text);

  RelayWorld(UpstreamUrl url, Link link);

  // Timers run on the hub's thread, the link on an I/O shard's.
  void attach(const SourceParts& parts) override;

  void start() override;
  void stop() override;
  protocol::Welcome welcome(std::uint64_t session, protocol::Role role) const override;
  void hello(std::uint64_t id, Hello hello) override;
  void command(std::uint64_t id, const protocol::CommandMsg& command) override;
  void control(std::uint64_t id, const protocol::ControlMsg& control) override;
  void left(std::uint64_t id) override;
  // The upstream traces them: told with the next snapshot (at most the snapshot rate).
  void inspected_changed() override { inspect_dirty_ = true; }
  // Healthy while it serves, also while it reconnects upstream (its viewers stay and are told
  // so): the body says which.
  Health health() const override;
  void add_metrics(MetricsView& m) const override;

 private:
  // Hellos waiting for the upstream's first welcome (nothing to welcome them to before it).
  struct WaitingHello {
    std::uint64_t id;
    protocol::Role role;
    protocol::SnapshotFormat format;
  };
  // A command or control sent on the link and not answered yet: whose, and its own seq.
  struct Pending {
    std::uint64_t client;
    std::uint32_t seq;
  };

  UpstreamLink::Events events(std::uint64_t generation);
  void connect();
  void retry_later();
  void read_next();
  void on_opened(std::uint64_t generation);
  void on_main(std::uint64_t generation, std::string text, bool binary, bool newer_waiting);
  void on_binary(std::string frame, bool behind);
  void on_welcome(protocol::Welcome w);
  void on_answer(std::uint32_t link_seq, protocol::ServerMessage msg);
  void on_main_closed(std::uint64_t generation, const std::string& why);
  // A snapshot as it came (its JSON text, or a binary frame decoded): relayed now if the pace
  // allows, else kept (the newest wins); not at all when `behind` (a newer one already waits).
  // A binary frame with the message it was decoded from: its side section is a view into those
  // bytes, which it keeps alive while it waits for the pace (a std::string moved with it could
  // move them).
  struct HeldFrame {
    std::shared_ptr<const std::string> bytes;
    protocol::BinaryFrame frame;
  };
  using Incoming = std::variant<std::string, HeldFrame>;
  void on_snapshot(Incoming snapshot, bool behind);
  void relay_waiting();
  void relay(Incoming snapshot);
  void new_world();
  void send_inspect();
  void greet(std::uint64_t id, protocol::Role role, protocol::SnapshotFormat format);
  // A command or control of client `id` may go on the link: its link seq (registered as
  // pending), or nothing when it was answered here already (link down, rate, too many waiting).
  std::optional<std::uint32_t> admit(std::uint64_t id, std::uint32_t seq);
  void refuse(std::uint64_t id, std::uint32_t seq, protocol::ErrorCode code, std::string message);

  const UpstreamUrl url_;
  Settings settings_;  // from the Link and the server's settings (attach)
  // The server's parts (attach).
  asio::io_context* ioc_ = nullptr;
  asio::io_context* link_ioc_ = nullptr;
  Hub* hub_ = nullptr;
  Observability* observe_ = nullptr;
  Observability::Counters* counters_ = nullptr;
  bool stopped_ = false;
  std::shared_ptr<UpstreamLink> main_;
  std::uint64_t main_generation_ = 0;
  std::uint64_t next_generation_ = 1;
  std::chrono::milliseconds backoff_{0};
  std::optional<asio::steady_timer> retry_;
  std::optional<protocol::Welcome> welcome_;  // the upstream's newest (world, rates, map, paused)
  // The snapshot plan's rows as a relay reads them: the parts a welcome carries, kept from the
  // snapshots relayed (keep_for_welcome); those that reach only the sessions that ask, made here
  // when due (relayed); the others relayed as the upstream's plan sent them.
  publish::SnapshotPlan plan_;
  std::optional<std::uint64_t> last_tick_;  // the newest relayed snapshot's
  // What the upstream's welcome on this link granted (commander: the relay's commanders may
  // command), and the error it sent before that welcome, if any (why it did not).
  protocol::Role granted_ = protocol::Role::viewer;
  std::string refusal_;
  bool linked_ = false;  // welcomed on the current link: commands may be sent
  std::vector<std::uint32_t>
      inspect_sent_;  // the union of clients' inspected agents, as told upstream
  bool inspect_dirty_ = false;
  std::vector<WaitingHello> waiting_;
  // Commands on the link by the link's seq; the next seq to use.
  std::unordered_map<std::uint32_t, Pending> pending_;
  std::uint32_t next_seq_ = 1;
  std::optional<TokenBucket> link_rate_;
  // Snapshot pacing: a bucket at a little over the upstream's snapshot rate, the snapshot that
  // waits for it (the newest), and the timer that relays it.
  TokenBucket pace_;
  double pace_rate_ = 0;  // the snapshot rate pace_ was made for
  std::optional<Incoming> waiting_snapshot_;
  // The link's binary frames: the baselines it holds, acknowledged upstream frame by frame.
  protocol::BinaryClient link_frames_;
  std::optional<asio::steady_timer> pace_timer_;
  bool pace_armed_ = false;
  // Read by /healthz and /metrics on the I/O threads. live: connected, and the upstream is not
  // itself a relay reconnecting to its own (a chain says so at every hop).
  std::atomic<bool> connected_{false}, live_{false}, commanding_{false};
  std::atomic<std::uint64_t> connects_{0}, snapshots_{0}, bytes_{0}, skipped_{0};
};

}  // namespace herd::net
