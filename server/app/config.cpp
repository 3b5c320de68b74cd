#include "app/config.hpp"

#include "app/paths.hpp"
#include "app/players.hpp"
#include "net/limits.hpp"
#include "protocol/codec.hpp"
#include "protocol/ws_url.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <random>
#include <sstream>

#include <arpa/inet.h>
#include <netinet/in.h>

namespace herd::app {
namespace {

// Shorter tokens are refused at start: about a thousand guesses a second reach a server.
constexpr std::size_t kMinTokenBytes = 16;

struct Option {
  const char* flag;  // without the leading "--"
  const char* env;
  const char* default_text;
  const char* help;
  // Applies a value; returns an empty string or what is wrong with it.
  std::string (*apply)(AppConfig&, const std::string&);
  bool is_switch =
      false;  // a flag without a value ("--headless"); its variable takes 1/0/true/false
};

std::string set_switch(bool& out, const std::string& v) {
  if (v == "1" || v == "true" || v == "yes")
    out = true;
  else if (v == "0" || v == "false" || v == "no")
    out = false;
  else
    return "must be 1, 0, true or false";
  return {};
}

template <class T>
bool parse_int(const std::string& s, T& out) {
  const auto* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc{} && ptr == end;
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}

}  // namespace

std::string check_tick_rate(double rate) {
  if (!std::isfinite(rate) || rate < kMinTickRate || rate > kMaxTickRate)
    return "must be a number in [1, 1000] (ticks per second; the world's dt is at most 1 s)";
  return {};
}

namespace {

std::string set_number(double& out, const std::string& v, double max) {
  double r = 0;
  if (!parse_double(v, r) || r <= 0 || r > max)
    return "must be a number in (0, " + std::to_string(static_cast<int>(max)) + "]";
  out = r;
  return {};
}

// An integer setting in [lo, hi].
template <class T>
std::string set_int(T& out, const std::string& v, T lo, T hi) {
  T n = 0;
  if (!parse_int(v, n) || n < lo || n > hi) {
    std::string why =
        "must be an integer in [";  // appended: GCC 12's false -Wrestrict on operator+
    why += std::to_string(lo);
    why += ", ";
    why += std::to_string(hi);
    why += "]";
    return why;
  }
  out = n;
  return {};
}

// The settings in --help's order, in three tables: clang-format 14 gives up laying out one table
// of them all (it indents the whole of it by the expression).
const std::vector<Option>& options() {
  static const std::vector<Option> kWorld = {
      {"address", "HERD_ADDRESS", "0.0.0.0", "address to listen on",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.server.address = v;
         return {};
       }},
      {"port", "HERD_PORT", "8080", "TCP port for HTTP and WebSocket (0: any free port)",
       [](AppConfig& c, const std::string& v) -> std::string {
         std::uint16_t p = 0;
         if (!parse_int(v, p)) return "must be an integer in [0, 65535]";
         c.server.port = p;
         return {};
       }},
      {"tick-rate", "HERD_TICK_RATE", "the scenario's (60)", "world ticks per second, [1, 1000]",
       [](AppConfig& c, const std::string& v) -> std::string {
         double rate = 0;
         if (!parse_double(v, rate)) return "must be a number in [1, 1000]";
         if (std::string why = check_tick_rate(rate); !why.empty()) return why;
         c.tick_rate_given = true;
         c.server.tick_rate = rate;
         return {};
       }},
      {"snapshot-rate", "HERD_SNAPSHOT_RATE", "20", "snapshots per second, (0, tick rate]",
       [](AppConfig& c, const std::string& v) {
         return set_number(c.server.snapshot_rate, v, 1000);
       }},
      {"scenario", "HERD_SCENARIO", "default",
       "scenario name (server/scenarios) or path to a .json file",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.scenario = v;
         return {};
       }},
      {"scenario-dir", "HERD_SCENARIO_DIR", "../share/herd/scenarios beside the binary",
       "directory of the named scenarios",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.scenario_dir = v;
         return {};
       }},
      {"seed", "HERD_SEED", "the scenario's",
       "seed of the world's random generator, an integer >= 0",
       [](AppConfig& c, const std::string& v) -> std::string {
         std::uint64_t s = 0;
         if (!parse_int(v, s)) return "must be an integer in [0, 2^64)";
         c.seed = s;
         return {};
       }},
      {"web-root", "HERD_WEB_ROOT", "../share/herd/web beside the binary",
       "directory of the browser viewer's files (the JavaScript client's modules it imports, "
       "served at /js/src/, are those of js/src beside it)",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.server.web_root = v;
         return {};
       }},
      {"headless", "HERD_HEADLESS", "off",
       "run the scenario without serving, as fast as it goes, then exit",
       [](AppConfig& c, const std::string& v) { return set_switch(c.headless, v); }, true},
      {"ticks", "HERD_TICKS", "600", "headless: ticks to run, [1, 100000000]",
       [](AppConfig& c, const std::string& v) -> std::string {
         std::uint64_t n = 0;
         if (!parse_int(v, n) || n < 1 || n > kMaxRunTicks)
           return "must be an integer in [1, 100000000]";
         c.ticks = n;
         return {};
       }},
      {"report", "HERD_REPORT", "off", "headless: print the scenario lab's metrics as JSON",
       [](AppConfig& c, const std::string& v) { return set_switch(c.report, v); }, true},
      {"record", "HERD_RECORD", "none", "write every accepted command, with its tick, to this file",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.record = v;
         return {};
       }},
      {"trajectories", "HERD_TRAJECTORIES", "none",
       "write every agent's position, velocity, state and group at --trajectory-rate to this "
       "SQLite database (WAL, written off the tick thread; headless and live)",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.trajectories = v;
         return {};
       }},
      {"trajectory-rate", "HERD_TRAJECTORY_RATE", "the snapshot rate",
       "trajectory frames per second of world time, (0, tick rate]",
       [](AppConfig& c, const std::string& v) -> std::string {
         double r = 0;
         if (std::string why = set_number(r, v, 1000); !why.empty()) return why;
         c.trajectory_rate = r;
         return {};
       }},
      {"trajectory-max-bytes", "HERD_TRAJECTORY_MAX_BYTES", "1073741824 (1 GiB)",
       "--trajectories stops recording when its database reaches this many bytes, [1 MiB, 2^50] "
       "(logged once; the frames after are counted as dropped)",
       [](AppConfig& c, const std::string& v) -> std::string {
         return set_int<std::uint64_t>(c.trajectory_max_bytes, v, std::uint64_t{1} << 20,
                                       std::uint64_t{1} << 50);
       }},
      {"checkpoint", "HERD_CHECKPOINT", "none",
       "file the whole world is written to, atomically, every interval and at shutdown",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.checkpoint = v;
         return {};
       }},
      {"checkpoint-interval", "HERD_CHECKPOINT_INTERVAL", "10",
       "seconds of world time between checkpoints, (0, 86400]",
       [](AppConfig& c, const std::string& v) -> std::string {
         double s = 0;
         if (!parse_double(v, s) || s <= 0 || s > 86400)
           return "must be a number of seconds in (0, 86400]";
         c.checkpoint_interval = s;
         return {};
       }},
      {"restore", "HERD_RESTORE", "1",
       "resume from the checkpoint file when it exists (0: start fresh and overwrite it)",
       [](AppConfig& c, const std::string& v) { return set_switch(c.restore, v); }},
      {"command-token", "HERD_COMMAND_TOKEN", "made at start",
       "commanders must say hello with this token, 16 to 256 bytes (prefer the variable: flags "
       "show "
       "in ps); without one the server makes one",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.size() > protocol::kMaxTokenBytes) return "must be at most 256 bytes";
         if (v.size() < kMinTokenBytes)
           return "must be at least 16 bytes (a short token is guessed; leave it unset and the "
                  "server makes one)";
         c.server.command_token = v;
         return {};
       }},
      {"players", "HERD_PLAYERS", "none",
       "a JSON file naming the players, their teams and tokens: each player commands its team's "
       "agents and sees only what they see (fog of war)",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.players = v;
         return {};
       }},
      {"spectator-delay", "HERD_SPECTATOR_DELAY", "30 with --players, else 0",
       "seconds of world time spectators watch behind the world, [0, 600]",
       [](AppConfig& c, const std::string& v) -> std::string {
         double s = 0;
         if (!parse_double(v, s) || s < 0 || s > 600)
           return "must be a number of seconds in [0, 600]";
         c.server.spectator_delay = s;
         return {};
       }},
      {"open-commands", "HERD_OPEN_COMMANDS", "off",
       "let any client command without a token (else one is made at start, on loopback too)",
       [](AppConfig& c, const std::string& v) { return set_switch(c.open_commands, v); }, true},
      {"allowed-origins", "HERD_ALLOWED_ORIGINS", "the server's own",
       "comma-separated Origins whose pages may open a WebSocket besides the server's own, e.g. "
       "https://game.example (* for any)",
       [](AppConfig& c, const std::string& v) -> std::string {
         std::string why;
         if (!net::parse_origins(v, c.server.allowed_origins, why)) return "has " + why;
         return {};
       }},
      {"allowed-hosts", "HERD_ALLOWED_HOSTS", "IP addresses, localhost, this machine's name",
       "comma-separated Host names the server answers to besides IP addresses (a.b.c.d, [IPv6]), "
       "localhost and the machine's name, e.g. herd.example or a compose service's herd (* for "
       "any); any other name, of one label too, gets 403",
       [](AppConfig& c, const std::string& v) -> std::string {
         std::string why;
         if (!net::parse_hosts(v, c.server.allowed_hosts, why)) return "has " + why;
         return {};
       }},
  };
  static const std::vector<Option> kLimits = {
      {"rate-limit", "HERD_RATE_LIMIT", "30", "messages per second per session, (0, 100000]",
       [](AppConfig& c, const std::string& v) {
         return set_number(c.server.rate_limit, v, 100000);
       }},
      {"rate-burst", "HERD_RATE_BURST", "60", "messages a session may send at once, [1, 100000]",
       [](AppConfig& c, const std::string& v) {
         std::uint32_t n = 0;
         std::string why = set_int<std::uint32_t>(n, v, 1, 100000);
         if (why.empty()) c.server.rate_burst = n;
         return why;
       }},
      {"max-sessions", "HERD_MAX_SESSIONS", "2000", "WebSocket sessions in all, [1, 100000]",
       [](AppConfig& c, const std::string& v) {
         return set_int<std::size_t>(c.server.max_sessions, v, 1, 100000);
       }},
      {"reserved-sessions", "HERD_RESERVED_SESSIONS", "16, at most half of --max-sessions",
       "of --max-sessions, those only a hello with the command token or a player's token may "
       "take (anonymous ones over the rest: close 1013), [0, --max-sessions]",
       [](AppConfig& c, const std::string& v) -> std::string {
         std::size_t n = 0;
         if (std::string why = set_int<std::size_t>(n, v, 0, 100000); !why.empty()) return why;
         c.server.reserved_sessions = n;
         return {};
       }},
      {"max-sessions-per-address", "HERD_MAX_SESSIONS_PER_ADDRESS", "256",
       "WebSocket sessions from one IP address (IPv6: one /64), [1, 100000]",
       [](AppConfig& c, const std::string& v) {
         return set_int<std::size_t>(c.server.max_sessions_per_address, v, 1, 100000);
       }},
      {"max-connections", "HERD_MAX_CONNECTIONS", "10000",
       "TCP connections open at once, HTTP and WebSocket (and under the descriptor limit), [1, "
       "1000000]",
       [](AppConfig& c, const std::string& v) {
         return set_int<std::size_t>(c.server.max_connections, v, 1, 1000000);
       }},
      {"max-connections-per-address", "HERD_MAX_CONNECTIONS_PER_ADDRESS",
       "half of --max-connections, at most 512",
       "TCP connections open at once from one IP address (IPv6: one /64), [1, 1000000]; /healthz "
       "and /readyz are answered over it",
       [](AppConfig& c, const std::string& v) {
         return set_int<std::size_t>(c.server.max_connections_per_address, v, 1, 1000000);
       }},
      {"max-http-keepalive", "HERD_MAX_HTTP_KEEPALIVE", "256",
       "HTTP connections kept open between requests, [0, 100000]",
       [](AppConfig& c, const std::string& v) {
         return set_int<std::size_t>(c.server.max_http_keepalive, v, 0, 100000);
       }},
      {"http-idle-timeout", "HERD_HTTP_IDLE_TIMEOUT", "5",
       "seconds an HTTP connection may wait for its next request, (0, 3600]",
       [](AppConfig& c, const std::string& v) {
         return set_number(c.server.http_idle_timeout, v, 3600);
       }},
      {"http-requests-per-second", "HERD_HTTP_REQUESTS_PER_SECOND", "100",
       "plain HTTP requests (files, /metrics, refused WebSocket upgrades; not health checks) a "
       "second "
       "from one IP address (IPv6: one /64), in bursts of twice that, then 429; 0 (no limit) or "
       "a number in [1, 100000]",
       [](AppConfig& c, const std::string& v) -> std::string {
         double r = 0;
         if (!parse_double(v, r) || (r != 0 && (r < 1 || r > 100000)))
           return "must be 0 (no limit) or a number in [1, 100000]";
         c.server.http_requests_per_second = r;
         return {};
       }},
      {"max-agents", "HERD_MAX_AGENTS", "the scenario's (20000)",
       "agents the world may hold, [1, 1000000]",
       [](AppConfig& c, const std::string& v) {
         std::uint32_t n = 0;
         std::string why = set_int<std::uint32_t>(n, v, 1, 1000000);
         if (why.empty()) c.max_agents = n;
         return why;
       }},
      {"sim-threads", "HERD_SIM_THREADS", "1 (a relay: the machine's cores)",
       "threads that step the world and encode binary frames between ticks (the tick loop's own "
       "included), [1, 64]; on a relay they encode its viewers' frames",
       [](AppConfig& c, const std::string& v) {
         c.sim_threads_given = true;
         return set_int<std::size_t>(c.server.sim_threads, v, 1, 64);
       }},
      {"io-threads", "HERD_IO_THREADS", "2",
       "threads that read and write the sockets, besides the tick thread, [1, 64]",
       [](AppConfig& c, const std::string& v) {
         return set_int<std::size_t>(c.server.io_threads, v, 1, 64);
       }},
      {"max-spawn", "HERD_MAX_SPAWN", "1000", "agents one spawn command may add, [1, 1000]",
       [](AppConfig& c, const std::string& v) {
         return set_int<std::uint32_t>(c.server.max_spawn, v, 1, protocol::kMaxSpawnPerCommand);
       }},
      {"max-message-bytes", "HERD_MAX_MESSAGE_BYTES", "65536",
       "largest message a client may send, [1024, 1048576]",
       [](AppConfig& c, const std::string& v) {
         return set_int<std::size_t>(c.server.max_message_bytes, v, 1024, 1048576);
       }},
      {"max-json-depth", "HERD_MAX_JSON_DEPTH", "16",
       "how deeply a client's JSON may nest, [4, 64]",
       [](AppConfig& c, const std::string& v) {
         return set_int(c.server.max_json_depth, v, 4, 64);
       }},
      {"idle-timeout", "HERD_IDLE_TIMEOUT", "60",
       "seconds without a frame from a client before it is closed (pinged at half), (0, 3600]",
       [](AppConfig& c, const std::string& v) {
         return set_number(c.server.idle_timeout, v, 3600);
       }},
      {"slow-client-timeout", "HERD_SLOW_CLIENT_TIMEOUT", "10",
       "seconds a client may stay behind on snapshots before it is closed, (0, 3600]",
       [](AppConfig& c, const std::string& v) {
         return set_number(c.server.slow_client_timeout, v, 3600);
       }},
  };
  static const std::vector<Option> kRest = {
      {"public-url", "HERD_PUBLIC_URL", "the listening address's",
       "the URL users open, printed in the server's URLs instead of the listening address's "
       "(e.g. http://127.0.0.1:8081/ where a container's port 8080 is mapped to the host's 8081)",
       [](AppConfig& c, const std::string& v) -> std::string {
         const bool web = v.rfind("http://", 0) == 0 || v.rfind("https://", 0) == 0;
         const std::size_t host = v.find("://") + 3;
         if (!web || host >= v.size() || v[host] == '/' ||
             v.find_first_of(" \t\n\r\"#?") != std::string::npos)
           return "must be an http:// or https:// URL like http://127.0.0.1:8081/";
         c.public_url = v.back() == '/' ? v : v + '/';
         return {};
       }},
      {"log-format", "HERD_LOG_FORMAT", "text",
       "log lines as text (key=value) or json (one object a line, for log shippers)",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v == "text")
           c.server.log_format = net::LogFormat::text;
         else if (v == "json")
           c.server.log_format = net::LogFormat::json;
         else
           return "must be text or json";
         return {};
       }},
      {"probe", "HERD_PROBE", "off",
       "ask the server at --address/--port for /healthz, exit 0 when it answers 200 (a container's "
       "health check)",
       [](AppConfig& c, const std::string& v) { return set_switch(c.probe, v); }, true},
      {"agones", "HERD_AGONES", "off",
       "speak the Agones SDK on the sidecar's REST port (AGONES_SDK_HTTP_PORT, default 9358): "
       "labels, Ready, Health, Shutdown",
       [](AppConfig& c, const std::string& v) { return set_switch(c.agones, v); }, true},
      {"agones-health-interval", "HERD_AGONES_HEALTH_INTERVAL", "2",
       "seconds between Agones Health calls, (0, 60]",
       [](AppConfig& c, const std::string& v) {
         return set_number(c.agones_health_interval, v, 60);
       }},
      {"relay", "HERD_RELAY", "none",
       "relay the world of the herd server (or relay) at this ws://HOST:PORT/ws URL to this one's "
       "viewers, instead of running one",
       [](AppConfig& c, const std::string& v) -> std::string {
         const auto url = protocol::parse_ws_url(v);
         if (std::holds_alternative<std::string>(url))
           return "must be a URL like ws://HOST:PORT/ws: " + std::get<std::string>(url);
         // The relay's link is plain TCP: it runs beside its upstream, inside one network.
         if (std::get<protocol::WsUrl>(url).tls)
           return "must be a ws:// URL: a relay's upstream link has no TLS";
         c.upstream_url = v;
         return {};
       }},
      {"relay-format", "HERD_RELAY_FORMAT", "auto",
       "with --relay: the snapshots the relay's link asks its upstream for: auto (binary frames "
       "once the world holds more than 1,000 agents, until 900 or fewer), binary, or json (every "
       "snapshot's text, "
       "relayed byte for byte)",
       [](AppConfig& c, const std::string& v) -> std::string {
         const auto format = protocol::snapshot_format_from_string(v);
         if (!format) return "must be auto, binary or json";
         c.relay_link_format = *format;
         return {};
       }},
      {"replay", "HERD_REPLAY", "none",
       "replay a recording headless, print its final state hash, then exit",
       [](AppConfig& c, const std::string& v) -> std::string {
         if (v.empty()) return "must not be empty";
         c.replay = v;
         return {};
       }},
  };
  static const std::vector<Option> kOptions = [] {
    std::vector<Option> all = kWorld;
    all.insert(all.end(), kLimits.begin(), kLimits.end());
    all.insert(all.end(), kRest.begin(), kRest.end());
    return all;
  }();
  return kOptions;
}

// The command line, one CLI11 option per setting of the table: its flag, its variable and default
// in --help, and its apply() as the check (a refusal is a ValidationError naming the flag).
// Unknown flags and stray words are left in remaining() and refused by parse_config.
void describe(CLI::App& app, AppConfig& c) {
  app.description(
      "herd-server: an authoritative fixed-tick simulation server for 2D steering agents.\n"
      "Every setting is a flag and an environment variable; a flag wins over the variable.\n"
      "Open http://localhost:PORT/ for the browser viewer; clients connect to ws://HOST:PORT/ws.");
  app.name("herd-server");
  app.set_help_flag("-h,--help", "this text");
  app.allow_extras();
  app.get_formatter()->column_width(44);
  for (const Option& o : options()) {
    const std::string flag = std::string("--") + o.flag;
    auto apply = [&c, &o, flag](const std::string& v) {
      if (std::string why = o.apply(c, v); !why.empty()) throw CLI::ValidationError(flag, why);
    };
    const std::string help = std::string(o.help) + " (default: " + o.default_text + ")";
    CLI::Option* opt = o.is_switch
                           ? app.add_flag_function(
                                 flag, [apply](std::int64_t n) { apply(n > 0 ? "1" : "0"); }, help)
                           : app.add_option_function<std::string>(flag, apply, help);
    opt->option_text(std::string(o.is_switch ? "" : "VALUE ") + "$" + o.env);
  }
}

}  // namespace

EnvLookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
}

ConfigResult parse_config(const std::vector<std::string>& args, const EnvLookup& env) {
  AppConfig c;
  const DataPaths data = default_data_paths();
  c.server.web_root = data.web_root;
  c.scenario_dir = data.scenario_dir;
  // Agones sets this variable for the game server's container.
  if (auto v = env("AGONES_SDK_HTTP_PORT")) {
    if (!parse_int(*v, c.agones_port) || c.agones_port == 0)
      return {{}, "AGONES_SDK_HTTP_PORT must be a port in [1, 65535]"};
  }
  // The environment first, then flags over it (CLI11 parses them from the same table).
  for (const Option& o : options()) {
    if (auto v = env(o.env)) {
      if (std::string why = o.apply(c, *v); !why.empty())
        return {{}, std::string(o.env) + " " + why};
    }
  }
  CLI::App app;
  describe(app, c);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    c.help = true;
    return {c, {}};
  } catch (const CLI::ArgumentMismatch& e) {  // "--port: 1 required TEXT missing"
    const std::string what = e.what();
    return {{}, what.substr(0, what.find(':')) + " needs a value"};
  } catch (const CLI::ParseError& e) {  // a value an Option's apply() refused: "--port: why"
    return {{}, e.what()};
  }
  if (const auto extra = app.remaining(); !extra.empty()) {
    const std::string& arg = extra.front();
    if (arg.rfind("--", 0) == 0)
      return {{}, "unknown flag '" + arg.substr(0, arg.find('=')) + "' (see --help)"};
    return {{}, "unexpected argument '" + arg + "' (see --help)"};
  }
  if (!c.players.empty()) {
    std::string why;
    PlayersFile file;
    if (!load_players(c.players, env, file, why)) return {{}, "--players: " + why};
    c.server.players = std::move(file.players);
    c.server.teams = std::move(file.teams);
    c.server.team_colours = std::move(file.colours);
  }
  if (c.server.reserved_sessions && *c.server.reserved_sessions > c.server.max_sessions)
    return {{},
            "--reserved-sessions must not exceed --max-sessions (" +
                std::to_string(c.server.max_sessions) + ")"};
  if (c.server.snapshot_rate > c.server.tick_rate && c.tick_rate_given)
    return {{}, "--snapshot-rate must not exceed --tick-rate"};
  if (c.trajectory_rate && *c.trajectory_rate > c.server.tick_rate && c.tick_rate_given)
    return {{}, "--trajectory-rate must not exceed --tick-rate"};
  return {c, {}};
}

bool is_loopback_address(const std::string& address) {
  if (address == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, address.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, address.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    if (IN6_IS_ADDR_V4MAPPED(&v6)) return v6.s6_addr[12] == 127;
  }
  return false;
}

std::string generate_token() {
  std::random_device device;  // getrandom(2) on Linux
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t word = device();
    for (int shift = 28; shift >= 0; shift -= 4) token += kHex[(word >> shift) & 15];
  }
  return token;
}

std::string help_text() {
  AppConfig ignored;
  CLI::App app;
  describe(app, ignored);
  return app.help();
}

}  // namespace herd::app
