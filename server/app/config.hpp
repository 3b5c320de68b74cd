// herd-server's settings: every one is a flag (--name VALUE or --name=VALUE) and an environment
// variable (HERD_NAME); a flag beats the environment, which beats the default.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "net/server.hpp"
#include "protocol/messages.hpp"

namespace herd::app {

struct AppConfig {
  net::ServerConfig server;                 // address, port, web_root, tick and snapshot rates
  std::string scenario = "default";         // a name in scenario_dir or a path to a .json file
  std::string scenario_dir;                 // default: beside the binary (default_data_paths)
  std::optional<std::uint64_t> seed;        // overrides the scenario's seed
  std::optional<std::uint32_t> max_agents;  // overrides the scenario's agent limit
  bool tick_rate_given = false;             // else the scenario's tick rate is used
  bool sim_threads_given = false;           // else a relay encodes on every core
  bool headless = false;                    // run the scenario without serving, as fast as possible
  std::uint64_t ticks = 600;                // headless: how many ticks
  bool report = false;                      // headless: print the scenario lab's metrics as JSON
  std::string record;                       // write every accepted command to this file
  std::string trajectories;                 // write trajectories to this SQLite database
  std::optional<double> trajectory_rate;    // frames per second of world time; else snapshot rate
  // The trajectory database's size (its write-ahead log included) at which recording stops.
  std::uint64_t trajectory_max_bytes = std::uint64_t{1} << 30;
  std::string replay;                 // replay this recording headless and print the final hash
  std::string checkpoint;             // where the world is checkpointed; empty: no checkpoints
  double checkpoint_interval = 10;    // seconds of world time between checkpoints
  bool restore = true;                // resume from the checkpoint when the file exists
  bool probe = false;                 // ask a running server's /healthz, then exit
  bool agones = false;                // speak the Agones SDK (app/agones.hpp)
  std::uint16_t agones_port = 9358;   // the SDK sidecar's REST port (AGONES_SDK_HTTP_PORT)
  double agones_health_interval = 2;  // seconds between Health calls
  bool open_commands = false;         // any client may command: no token, none made
  // The URL users open, when it is not the one the server listens on (a container's port mapped
  // to another on the host, a proxy): the URLs printed are made from it. http(s)://HOST[:PORT]/,
  // ending in '/'; empty: the listening address's.
  std::string public_url;
  std::string players;  // the players file (players.hpp); empty: no players
  // Relaying instead of stepping a world: the upstream's ws:// URL (empty: not a relay), and the
  // snapshots the relay's link asks it for.
  std::string upstream_url;
  protocol::SnapshotFormat relay_link_format = protocol::SnapshotFormat::automatic;
  bool help = false;
};

// The tick rates a world runs at, --tick-rate's and a recording's alike: 1 to 1,000 ticks a
// second, so that dt = 1 / rate stays within the world's limits (at most 1 s).
inline constexpr double kMinTickRate = 1, kMaxTickRate = 1000;
// Empty when `rate` is such a rate, else what is wrong with it (for a message naming the field).
std::string check_tick_rate(double rate);
// The most ticks one run steps: headless --ticks, and a replay (all its worlds together).
inline constexpr std::uint64_t kMaxRunTicks = 100'000'000;

// Looks an environment variable up; nullopt when unset. Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup process_env();

struct ConfigResult {
  std::optional<AppConfig> config;
  std::string error;  // when config is empty: what is wrong, naming the flag or variable
};

ConfigResult parse_config(const std::vector<std::string>& args, const EnvLookup& env);

// Whether the server listening on `address` is reachable only from this machine (127.0.0.0/8,
// ::1, localhost). 0.0.0.0 and :: are not: they listen everywhere.
bool is_loopback_address(const std::string& address);

// A command token for a server exposed without one: 32 random bytes from the OS, in hex.
std::string generate_token();

// The --help text: every setting with its variable and default.
std::string help_text();

}  // namespace herd::app
