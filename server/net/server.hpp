// herd::net::Server — one port: HTTP (viewer files, /healthz) and WebSocket (/ws), plus the
// fixed-tick loop that steps the world and broadcasts snapshots.
//
// A plain interface: no Boost here, and Beast only in the few units that need it (the sessions,
// the listener, the shards, the relay's link: it is slow to compile). The world, the tick loop and
// the callbacks below run on the thread that calls run() (the tick thread); the sockets run on
// io_threads threads of their own, so that a thousand sessions' reads and writes never delay a
// tick. stop() and stats() may be called from any thread.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "herd/sim/world.hpp"
#include "net/observability_text.hpp"
#include "protocol/messages.hpp"

namespace herd::net {

// A player (--players): its name, its team (1 to 63) and the token its hello carries.
struct PlayerAccount {
  std::string name;
  std::uint8_t team = 1;
  std::string token;
};

struct ServerConfig {
  std::string address = "0.0.0.0";
  std::uint16_t port = 8080;    // 0: the OS picks one; start() returns it
  std::string web_root;         // directory served at "/" (the browser viewer)
  double tick_rate = 60.0;      // ticks per second; must match the world's dt
  double snapshot_rate = 20.0;  // snapshots per second, <= tick_rate
  std::size_t sim_threads =
      1;  // threads that step the world, the tick loop's own included; [1, 64]
  std::size_t io_threads =
      2;  // threads that read and write the sockets (besides the tick thread); [1, 64]
  int max_catchup_ticks = 4;              // ticks run at most per wake when behind (then dropped)
  std::size_t control_queue_limit = 256;  // unread acks/errors/pongs before a session is closed
  std::size_t max_message_bytes = protocol::kMaxMessageBytes;  // larger frames: close 1009

  // Defences (PROTOCOL.md "Limits"); each refusal is counted in /metrics.
  std::string command_token;  // non-empty: a commander's hello must carry it
  // Players: with some, a session is the operator (the command token), a player (its token: its
  // team's agents, its team's sight), or a spectator (everything, spectator_delay seconds of
  // world time late); a viewer's hello is a spectator's.
  std::vector<PlayerAccount> players;
  // Each player team's rules (the players file's `teams`): its cap of agents and spawn area. A team
  // without a cap of its own holds the world's max_agents shared equally among the players' teams.
  std::map<std::uint8_t, sim::TeamRules> teams;
  // Each team's colour from the players file ("#rrggbb"), told in every welcome.
  std::map<std::uint8_t, std::string> team_colours;
  std::optional<double> spectator_delay;  // unset: 30 s with players, 0 without
  double spectator_delay_seconds() const {
    return spectator_delay.value_or(players.empty() ? 0 : 30);
  }
  // Origins besides the server's own whose pages may open a WebSocket (lower-case
  // scheme://host[:port]; "*": any), and Host names it answers to besides IP addresses, loopback
  // names and the machine's own (lower-case; "*": any). limits.hpp says why.
  std::vector<std::string> allowed_origins;
  std::vector<std::string> allowed_hosts;
  double rate_limit = 30;           // messages per second per session (token bucket)...
  double rate_burst = 60;           // ...with this many at once; more: rate_limited
  std::size_t max_sessions = 2000;  // WebSocket sessions in all; more: close 1013
  // Of max_sessions, the places kept for hellos with the operator's or a player's token: anonymous
  // sessions (viewers, spectators, wrong tokens) over max_sessions less these are closed 1013 at
  // hello. Unset: 16, at most half of max_sessions; at most max_sessions.
  std::optional<std::size_t> reserved_sessions;
  std::size_t reserved_sessions_count() const {
    return std::min(reserved_sessions.value_or(std::min<std::size_t>(16, max_sessions / 2)),
                    max_sessions);
  }
  std::size_t max_sessions_per_address = 256;  // from one IP address; more: close 1013
  // Seconds a WebSocket session may take to say hello (its place among max_sessions is taken
  // then); later: close 1008.
  double hello_timeout = 10;
  std::uint32_t max_spawn =
      protocol::kMaxSpawnPerCommand;             // agents per spawn; more: limit_exceeded
  int max_json_depth = protocol::kMaxJsonDepth;  // deeper: too_deep
  double idle_timeout = 60;  // seconds without a frame from the client (pings at half)
  // Connections: TCP connections open at once, HTTP and WebSocket (more are closed as they are
  // accepted; also kept under the process's descriptor limit); HTTP connections kept open between
  // requests (beyond: answered with Connection: close), and how long one may wait for its next
  // request.
  std::size_t max_connections = 10000;
  // From one address (IPv6: one /64); more get 503 as they are accepted. 0: half of
  // max_connections, at most 512. Health requests are answered over both caps (http_session.hpp).
  std::size_t max_connections_per_address = 0;
  std::size_t max_http_keepalive = 256;
  double http_idle_timeout = 5;
  // Plain HTTP requests (not WebSocket upgrades, not health checks) per second from one address
  // (IPv6: one /64), in bursts of twice that; more get 429 with Retry-After. 0: no limit.
  double http_requests_per_second = 100;
  double slow_client_timeout = 10;  // seconds a session may stay behind on snapshots
  // Called on the tick thread for every command the world accepted, in order, with the tick
  // at whose start it was applied (record and replay, logs).
  std::function<void(std::uint64_t tick, const sim::Command& command)> on_applied;
  // Where log lines go (one per event: time, level, event, fields); none when empty. Called from
  // any of the server's threads, one call at a time.
  LogSink log;
  LogFormat log_format = LogFormat::text;
  // Called on the tick thread every checkpoint_interval seconds of world time with the world
  // between two ticks (the app writes it to disk); never when empty.
  std::function<void(const sim::World& world)> on_checkpoint;
  // A player (by name) joined, its first session welcomed, or left, its last session gone. On the
  // hub's thread: it must not block (the Agones link queues it).
  std::function<void(const std::string& player, bool joined)> on_player;
  double checkpoint_interval = 10.0;  // seconds of world time, > 0
  // Called on the tick thread after every world step, step runs' included, with the world (the
  // app's trajectory recorder copies a frame from it when one is due); never when empty. Its time
  // is not in the step's (herd_tick_duration_seconds).
  std::function<void(const sim::World& world)> on_ticked;
  // Called when /metrics is read, on any thread, to fill the view's fields that the app's own
  // parts count (the trajectory recorder's); never when empty.
  std::function<void(MetricsView& view)> add_metrics;
  // reset and load_scenario: the running scenario's name, and how to build a world from a
  // scenario name and seed (a world, or a sentence saying why not). Without it those controls are
  // refused.
  std::string scenario;
  std::function<std::variant<sim::World, std::string>(const std::string& name,
                                                      std::optional<std::uint64_t> seed)>
      load_world;
  // Called after reset or load_scenario put a new world in place (the recorder marks it).
  std::function<void(const std::string& scenario, const sim::World& world)> on_world_replaced;
  // What welcome calls the running scenario: its own name, as `scenario` may be the operator's
  // path to a file, which no client is told (empty: `scenario`). load_scenario replaces it.
  std::string scenario_name;
  // The scenario names clients may load (welcome's `scenarios`): asked at start and again after
  // every reset and load_scenario, not for every welcome. None when empty.
  std::function<std::vector<std::string>()> list_scenarios;
  // What each of those shows, by name (welcome's `descriptions`), asked with the list; and the
  // running scenario's (welcome's `description`; load_scenario replaces it).
  std::function<std::map<std::string, std::string>()> describe_scenarios;
  std::string scenario_description;
};

struct ServerStats {
  std::uint64_t tick = 0;
  std::uint64_t overruns = 0;  // tick-loop wakes that had to drop ticks
  std::uint64_t ticks_dropped = 0;
  std::uint64_t sessions = 0;           // open WebSocket sessions
  std::uint64_t snapshots_sent = 0;     // snapshot frames written, all sessions
  std::uint64_t snapshots_dropped = 0;  // not written to a session (latest-wins), all reasons
  std::uint64_t commands_accepted = 0;
  std::uint64_t commands_rejected = 0;
  std::uint64_t agents = 0;
  std::uint64_t refusals = 0;  // limits hit, every kind (metrics break them down)
  std::uint64_t accept_failures =
      0;  // accepts that failed (out of descriptors, ...), retried after a pause
  std::uint64_t max_connections = 0;  // the connection cap in force (set by start())
};

class WorldSource;  // world_source.hpp

class Server {
 public:
  // Serves the world `source` gives: main chooses a LocalWorld (a world stepped here,
  // local_world.hpp) or a RelayWorld (another server's, relay_world.hpp). The server lends it
  // its parts.
  Server(ServerConfig config, std::unique_ptr<WorldSource> source);
  // A world stepped here: a LocalWorld of `world`.
  Server(ServerConfig config, sim::World world);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens. Returns the bound port. Throws std::runtime_error saying what failed
  // (address in use, bad address).
  std::uint16_t start();

  // Serves and ticks on the calling thread until stop(); then closes every session with
  // "going away" and returns.
  void run();

  // Thread-safe; idempotent.
  void stop();

  // Call before run(): SIGINT and SIGTERM stop the server as stop() does, calling `said` with the
  // signal first, on the server's own thread (through Asio's signal_set: no handler runs in the
  // middle of the server's work). A second signal while it stops is taken and ignored.
  void stop_on_signals(std::function<void(int signal)> said);

  ServerStats stats() const;

  // The world, when it is stepped here (nullptr on a relay, which has none). Call only when run()
  // is not running (before it, or after it returned): the app writes its last checkpoint from it.
  const sim::World* world() const;
  // Its state hash, on the same terms (0 on a relay).
  std::uint64_t state_hash() const;

  struct Impl;  // opaque: the server's parts (net/server_impl.hpp), which sessions reach through
                // SessionHub

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace herd::net
