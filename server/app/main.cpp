// herd-server: flags and environment, wiring, signals.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "app/agones.hpp"
#include "app/checkpoint_file.hpp"
#include "app/config.hpp"
#include "app/headless.hpp"
#include "app/probe.hpp"
#include "app/recording.hpp"
#include "app/trajectories.hpp"
#include "net/relay_world.hpp"
#include "net/server.hpp"
#include "protocol/local_server.hpp"
#include "scenarios/scenario.hpp"

namespace {

// `text` with every byte but letters, digits and -._~ as %XX: a player's token in a URL's
// fragment reads back as it is (URLSearchParams turns '+' into a space and stops at '&').
std::string percent_encoded(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

int fail(const std::string& message) {
  std::cerr << "herd-server: " << message << "\n";
  return 2;
}

std::string signal_name(int signal) {
  return signal == SIGINT    ? "SIGINT"
         : signal == SIGTERM ? "SIGTERM"
                             : "signal " + std::to_string(signal);
}

// A rate or a time as people write it: 60, 20, 0.5 (not 60.000000).
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// A relay: no world of its own; serves the upstream's to its viewers until a signal.
int run_relay(herd::app::AppConfig& config) {
  using namespace herd;
  config.server.log = [](std::string_view line) { std::cout << line << std::endl; };
  const net::LogFormat log_format = config.server.log_format;
  auto say = [log_format](const std::string& text) {
    if (log_format == net::LogFormat::json)
      std::cout << net::format_log(net::LogLevel::info, "message", {{"text", text}}, log_format)
                << std::endl;
    else
      std::cout << "herd: " << text << std::endl;
  };
  // The relay commands its upstream over its one link with the upstream's token, and asks it
  // of its own commanders; without one (and without --open-commands) its clients only watch.
  const bool view_only = config.server.command_token.empty() && !config.open_commands;
  auto url = net::RelayWorld::parse_url(config.upstream_url);
  if (auto* why = std::get_if<std::string>(&url)) return fail(*why);
  std::optional<net::Server> server;
  std::uint16_t port = 0;
  try {
    server.emplace(config.server, std::make_unique<net::RelayWorld>(
                                      std::get<net::UpstreamUrl>(std::move(url)),
                                      net::RelayWorld::Link{!view_only, config.relay_link_format}));
    port = server->start();
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  // Before "listening on" is said: whoever waits for that line may stop the relay at once.
  server->stop_on_signals([say](int signal) { say(signal_name(signal) + ", shutting down"); });
  const std::string host = config.server.address == "0.0.0.0" || config.server.address == "::"
                               ? "127.0.0.1"
                               : config.server.address;
  say("relaying " + config.upstream_url + " to this server's viewers; " +
      (view_only ? "its clients only watch (no --command-token for it)"
       : config.server.command_token.empty()
           ? "anyone may command through it (--open-commands)"
           : "commanders need its command token (HERD_COMMAND_TOKEN)"));
  say("listening on http://" + host + ":" + std::to_string(port) + "/");
  say("open http://localhost:" + std::to_string(port) +
      "/ in a browser; WebSocket at ws://localhost:" + std::to_string(port) + "/ws");
  server->run();
  say("relay stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace herd;
  const auto parsed =
      app::parse_config(std::vector<std::string>(argv + 1, argv + argc), app::process_env());
  if (!parsed.config) return fail(parsed.error);
  app::AppConfig config = *parsed.config;
  if (config.help) {
    std::cout << app::help_text();
    return 0;
  }
  if (config.probe) {
    // Exit 0 when the server answers /healthz with 200, 1 otherwise (what a health check wants).
    const auto result = app::probe_health(config.server.address, config.server.port);
    std::cout << "herd: " << (result.healthy ? "healthy" : "unhealthy") << " (" << result.detail
              << ")" << std::endl;
    return result.healthy ? 0 : 1;
  }
  if (!config.replay.empty()) {
    // Exit 0 when the replay ends on the recorded hash (or the run was not ended cleanly), 1 when
    // it differs.
    const auto result = app::replay(config.replay, config.scenario_dir);
    if (auto* why = std::get_if<std::string>(&result)) return fail(*why);
    const auto& r = std::get<app::ReplayResult>(result);
    std::cout << "herd: replayed " << r.commands << " commands to tick " << r.end_tick
              << ", state hash 0x" << std::hex << r.state_hash << std::dec;
    if (r.recorded_hash)
      std::cout << (*r.recorded_hash == r.state_hash ? " (matches the recording)"
                                                     : " (DIFFERS from the recording)");
    std::cout << std::endl;
    return r.recorded_hash && *r.recorded_hash != r.state_hash ? 1 : 0;
  }
  if (!config.headless && !std::filesystem::is_directory(config.server.web_root))
    return fail("web root '" + config.server.web_root +
                "' is not a directory (set --web-root or HERD_WEB_ROOT)");

  if (!config.upstream_url.empty()) {
    if (config.headless || !config.checkpoint.empty() || !config.record.empty() ||
        !config.trajectories.empty())
      return fail(
          "--relay serves another server's world: it takes no --headless, --checkpoint, --record "
          "or --trajectories");
    // A relay steps no world: its pool encodes the viewers' frames, on every core unless told.
    if (!config.sim_threads_given)
      config.server.sim_threads =
          std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 64);
    return run_relay(config);
  }

  auto loaded = scenario::load(config.scenario, config.scenario_dir);
  if (auto* why = std::get_if<std::string>(&loaded)) return fail(*why);
  scenario::Scenario& sc = std::get<scenario::Scenario>(loaded);
  // The server's tick rate is the world's: dt = 1 / tick rate, fixed.
  if (config.max_agents) sc.def.max_agents = *config.max_agents;
  if (config.tick_rate_given)
    sc.def.dt = 1.0 / config.server.tick_rate;
  else
    config.server.tick_rate = 1.0 / sc.def.dt;
  if (config.server.snapshot_rate > config.server.tick_rate)
    return fail("snapshot rate " + number(config.server.snapshot_rate) + " exceeds tick rate " +
                number(config.server.tick_rate));
  const double trajectory_rate = config.trajectory_rate.value_or(config.server.snapshot_rate);
  if (!config.trajectories.empty() && trajectory_rate > config.server.tick_rate)
    return fail("trajectory rate " + number(trajectory_rate) + " exceeds tick rate " +
                number(config.server.tick_rate) + " (--trajectory-rate, HERD_TRAJECTORY_RATE)");
  auto world = scenario::build_world(sc, config.seed);
  if (auto* why = std::get_if<std::string>(&world)) return fail(*why);
  bool restored = false;
  if (!config.checkpoint.empty() && config.restore && std::filesystem::exists(config.checkpoint) &&
      !config.headless) {
    // A checkpoint that cannot be read stops the server: starting fresh would overwrite the world
    // it holds. Only --restore=0 (or removing the file) starts fresh.
    auto from_disk = app::read_checkpoint(config.checkpoint);
    if (auto* why = std::get_if<std::string>(&from_disk))
      return fail(*why + "; start fresh with --restore=0 (HERD_RESTORE=0), which overwrites it");
    world = std::move(std::get<sim::World>(from_disk));
    config.server.tick_rate = 1.0 / std::get<sim::World>(world).def().dt;  // the world's own dt
    restored = true;
    // The world is the checkpoint's scenario's, whatever --scenario says now: it is named so (the
    // log, welcomes, herd-ctl info) and reset rebuilds it, and the operator is told.
    if (const auto held = app::read_checkpoint_scenario(config.checkpoint);
        held && *held != config.scenario) {
      std::cerr << "herd-server: the checkpoint " << config.checkpoint
                << " holds a world of scenario '" << *held << "': --scenario '" << config.scenario
                << "' is not used (start fresh with --restore=0, HERD_RESTORE=0, to change it)\n";
      // Its name and description from its file, when it still loads (else the name alone).
      auto held_loaded = scenario::load(*held, config.scenario_dir);
      config.scenario = *held;
      if (auto* found = std::get_if<scenario::Scenario>(&held_loaded)) {
        sc = std::move(*found);
        if (config.max_agents) sc.def.max_agents = *config.max_agents;
      } else {
        sc.name = *held;
        sc.description.clear();
      }
    }
  }

  // Trajectories: a file that cannot be written stops the start, as a bad setting does.
  std::unique_ptr<app::TrajectoryRecorder> trajectories;
  auto open_trajectories = [&](app::TrajectoryRecorder::WhenFull when_full,
                               app::TrajectoryRecorder::Log log) -> std::string {
    if (config.trajectories.empty()) return {};
    auto opened = app::TrajectoryRecorder::open(
        {config.trajectories, trajectory_rate, when_full, restored,
         app::TrajectoryRecorder::kQueueFrames, config.trajectory_max_bytes, std::move(log)},
        std::get<sim::World>(world), sc.name, restored ? "checkpoint" : "start");
    if (auto* why = std::get_if<std::string>(&opened))
      return *why + "; create its directory, or choose another --trajectories (HERD_TRAJECTORIES)";
    trajectories = std::move(std::get<std::unique_ptr<app::TrajectoryRecorder>>(opened));
    return {};
  };

  if (config.headless) {
    // Headless, the run waits for the writer rather than drop a frame: it has no clock to keep.
    // The recorder's log lines (a cap reached, a failed write) go to stderr, as text.
    auto log = [](net::LogLevel level, std::string_view event,
                  std::initializer_list<net::LogField> fields) {
      std::cerr << net::format_log(level, event, fields, net::LogFormat::text) << std::endl;
    };
    if (std::string why = open_trajectories(app::TrajectoryRecorder::WhenFull::wait, log);
        !why.empty())
      return fail(why);
    sim::World& w = std::get<sim::World>(world);
    const auto result = app::run_headless(w, config.ticks, [&](const sim::World& stepped) {
      if (trajectories) trajectories->capture(stepped);
    });
    if (trajectories) {
      trajectories->capture_final(w);  // the last tick is always a frame
      if (std::string why = trajectories->close(); !why.empty()) {
        std::cerr << "herd-server: trajectories: " << why << "\n";
        return 1;
      }
    }
    if (config.report)
      std::cout << app::report_json(sc.name, result) << std::endl;
    else
      std::cout << "herd: " << sc.name << " ran " << result.final_tick << " ticks, state hash 0x"
                << std::hex << result.state_hash << std::dec << std::endl;
    if (trajectories && !config.report)
      std::cout << "herd: " << trajectories->stats().frames_written
                << " trajectory frames written to " << config.trajectories << std::endl;
    return 0;
  }

  // What the operator is told: "herd: ..." lines, or with --log-format json one object a line
  // like every other log line.
  const net::LogFormat log_format = config.server.log_format;
  auto say = [log_format](const std::string& text) {
    if (log_format == net::LogFormat::json)
      std::cout << net::format_log(net::LogLevel::info, "message", {{"text", text}}, log_format)
                << std::endl;
    else
      std::cout << "herd: " << text << std::endl;
  };
  auto event = [log_format](net::LogLevel level, std::string_view name,
                            std::initializer_list<net::LogField> fields) {
    std::cout << net::format_log(level, name, fields, log_format) << std::endl;
  };

  // Without a command token the server makes one for this run, on every address (as Jupyter
  // does): anyone who reaches the port may watch, only those given the URL (or the user's local
  // clients, through the runtime file) may command. Loopback is no permission: any web page the
  // user opens can reach a loopback port.
  const bool token_generated = config.server.command_token.empty() && !config.open_commands;
  if (token_generated) config.server.command_token = app::generate_token();

  // A checkpoint file that cannot be written stops the server now rather than failing at every
  // interval: the first checkpoint is the world it starts with.
  if (!config.checkpoint.empty()) {
    if (std::string why =
            app::write_checkpoint(config.checkpoint, std::get<sim::World>(world), config.scenario);
        !why.empty())
      return fail("cannot checkpoint to " + config.checkpoint + " (" + why +
                  "); create its directory, or choose another --checkpoint (HERD_CHECKPOINT)");
  }

  if (std::string why = open_trajectories(
          app::TrajectoryRecorder::WhenFull::drop,
          [event](net::LogLevel level, std::string_view name,
                  std::initializer_list<net::LogField> fields) { event(level, name, fields); });
      !why.empty())
    return fail(why);
  if (trajectories) {
    config.server.on_ticked = [&trajectories](const sim::World& w) { trajectories->capture(w); };
    config.server.add_metrics = [&trajectories](net::MetricsView& m) {
      const auto s = trajectories->stats();
      m.trajectories = true;
      m.trajectory_frames_written = s.frames_written;
      m.trajectory_frames_dropped = s.frames_dropped;
      m.trajectory_batches = s.batches;
      m.trajectory_queued = s.queued;
      m.trajectory_failed = s.failed ? 1 : 0;
    };
  }

  std::optional<app::Recorder> recorder;
  if (!config.record.empty()) {
    std::string why;
    const sim::World& start = std::get<sim::World>(world);
    app::RecordHeader header{
        config.scenario, config.seed.value_or(sc.def.seed), config.server.tick_rate, {}};
    // A restored world is not the scenario's: the recording carries it, so that it replays.
    if (restored) header.start_checkpoint = start.save_checkpoint();
    recorder = app::Recorder::open(config.record, header, why);
    if (!recorder) return fail(why);
    config.server.on_applied = [&recorder](std::uint64_t tick, const sim::Command& c) {
      recorder->record(tick, c);
    };
  }
  std::string running_scenario = config.scenario;  // the tick thread's while the server runs
  if (!config.checkpoint.empty()) {
    config.server.checkpoint_interval = config.checkpoint_interval;
    // With the scenario the running world is of: the operator's --scenario, or what load_scenario
    // put in its place since (on_world_replaced, on the tick thread as this).
    config.server.on_checkpoint = [&config, &running_scenario, event](const sim::World& w) {
      if (std::string why = app::write_checkpoint(config.checkpoint, w, running_scenario);
          !why.empty())
        event(net::LogLevel::error, "checkpoint_failed", {{"reason", why}});
    };
  }
  // reset and load_scenario build worlds the way start-up does.
  config.server.scenario = config.scenario;
  config.server.scenario_name = sc.name;
  config.server.list_scenarios = [dir = config.scenario_dir] { return scenario::list(dir); };
  config.server.describe_scenarios = [dir = config.scenario_dir] {
    return scenario::describe(dir);
  };
  config.server.scenario_description =
      scenario::cut_utf8(sc.description, scenario::kMaxDescriptionBytes);
  config.server.load_world =
      [dir = config.scenario_dir, max_agents = config.max_agents](
          const std::string& name,
          std::optional<std::uint64_t> seed) -> std::variant<sim::World, std::string> {
    // Clients name scenarios; paths are for the operator's --scenario only.
    auto loaded = scenario::load_named(name, dir);
    if (auto* why = std::get_if<std::string>(&loaded)) return *why;
    if (max_agents) std::get<scenario::Scenario>(loaded).def.max_agents = *max_agents;
    auto built = scenario::build_world(std::get<scenario::Scenario>(loaded), seed);
    if (auto* why = std::get_if<std::string>(&built)) return *why;
    return std::move(std::get<sim::World>(built));
  };
  // The running scenario's name, for Agones' label: replaced on the tick thread, read by the link.
  std::mutex scenario_mutex;
  std::string scenario_name = sc.name;
  config.server.on_world_replaced = [&recorder, &trajectories, &scenario_mutex, &scenario_name,
                                     &running_scenario, &config,
                                     &sc](const std::string& name, const sim::World& w) {
    running_scenario = name;
    if (recorder) recorder->world_replaced({name, w.def().seed, 1.0 / w.def().dt, {}});
    // A reset names the operator's --scenario, which may be a path: the trajectories name it as
    // the meta table does.
    if (trajectories)
      trajectories->begin_world(w, name == config.scenario ? sc.name : name, "replaced");
    const std::lock_guard lock(scenario_mutex);
    scenario_name = name;
  };
  // Log lines go to standard output, one per event (Docker and journald collect them as they are).
  config.server.log = [](std::string_view line) { std::cout << line << std::endl; };
  // Players joining and leaving, for Agones' player tracking (queued: the hub never waits on it).
  auto player_events = std::make_shared<app::PlayerEvents>();
  if (config.agones && !config.server.players.empty())
    config.server.on_player = [player_events](const std::string& player, bool joined) {
      player_events->push(player, joined);
    };
  const std::size_t agent_count = std::get<sim::World>(world).agents().size();
  const std::uint64_t start_tick = std::get<sim::World>(world).tick();
  net::Server server(config.server, std::move(std::get<sim::World>(world)));
  std::uint16_t port = 0;
  try {
    port = server.start();
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  // SIGINT and SIGTERM stop the server cleanly (the checkpoint, the recording and the trajectory
  // file completed) from before "listening on" is said: whoever waits for that line (a script, a
  // test, an orchestrator) may stop it at once. A signal handled before run() stops it as run()
  // begins.
  server.stop_on_signals([say](int signal) { say(signal_name(signal) + ", shutting down"); });
  // The address clients on this machine reach the server at, literally: the URLs printed hold it
  // and the runtime file names it. Never `localhost`, which may resolve to an address the server
  // does not hold (`::1` beside a server on IPv4), where another local user may listen.
  const std::string& bound = config.server.address;
  const std::string local_address = bound == "0.0.0.0" ? "127.0.0.1"
                                    : bound == "::"    ? "::1"
                                                       : bound;
  const std::string host =
      local_address.find(':') != std::string::npos ? "[" + local_address + "]" : local_address;
  const std::string url = "http://" + host + ":" + std::to_string(port) + "/";
  if (restored)
    say("restored from checkpoint " + config.checkpoint + " at tick " + std::to_string(start_tick));
  say("scenario '" + sc.name + "', " + std::to_string(agent_count) + " agents, " +
      number(config.server.tick_rate) + " ticks/s, " + number(config.server.snapshot_rate) +
      " snapshots/s");
  // The runtime file is written before "listening on" is said: whoever waits for that line
  // (a script, a test) finds the token there at once.
  // What users open: the public URL when one is set (a container's port mapped to another on
  // the host), else the listening address's.
  const std::string& browse = config.public_url.empty() ? url : config.public_url;
  const std::string ws_url =
      config.public_url.empty()
          ? "ws://" + host + ":" + std::to_string(port) + "/ws"
          : (config.public_url.rfind("https://", 0) == 0 ? "wss://" + browse.substr(8)
                                                         : "ws://" + browse.substr(7)) +
                "ws";
  std::filesystem::path runtime_file;
  std::string runtime_why;
  // Files of servers that are gone (SIGKILL leaves them) are removed: their ports may be anyone's.
  protocol::remove_stale_local_servers();
  if (!config.server.command_token.empty()) {
    protocol::LocalServer local{port,
                                {local_address},
                                browse + "#token=" + config.server.command_token,
                                config.server.command_token,
                                static_cast<long>(::getpid()),
                                {}};
    // Each player's URL goes to this file (0600, the operator's) and never to the log:
    // `herd-ctl players` prints them on this machine.
    for (const net::PlayerAccount& p : config.server.players)
      local.players.push_back(
          {p.name, p.team, browse + "#role=player&token=" + percent_encoded(p.token)});
    runtime_why = protocol::write_local_server(local, runtime_file);
  }
  say("listening on " + url);
  if (config.server.command_token.empty()) {
    say("open " + browse + " in a browser; anyone may command (--open-commands)");
    say("the operator's monitor (sessions, kick, the tick's stages): " + browse + "monitor");
  } else {
    // A token the operator chose is theirs already: logs (often shipped elsewhere) never hold it.
    const std::string fragment =
        "#token=" + (token_generated ? config.server.command_token : "<HERD_COMMAND_TOKEN>");
    say("open this URL in a browser to watch and command (anyone who reaches the port may watch):");
    say("    " + browse + fragment);
    say("the operator's monitor (sessions, kick, the tick's stages):");
    say("    " + browse + "monitor" + fragment);
    if (!runtime_why.empty())
      say("the token is not in a runtime file for herd-ctl and herd-view (" + runtime_why +
          "): give it to them with --token or HERD_COMMAND_TOKEN");
    else if (config.public_url.empty())
      say("herd-ctl and herd-view on this machine find the token in " + runtime_file.string());
    else {
      // Behind a mapped port (a container) the runtime file is not the user's machine's.
      say("herd-ctl and herd-view where this server runs find the token in " +
          runtime_file.string() + "; elsewhere give them --url " + ws_url + " and --token, " +
          (token_generated ? "the token in the URL above" : "HERD_COMMAND_TOKEN"));
      say("    (from a compose host: `docker compose exec herd cat " + runtime_file.string() +
          "`, or `docker compose logs herd` for this log; podman-compose likewise)");
    }
    if (token_generated)
      say("(made for this run: set HERD_COMMAND_TOKEN to choose one, or --open-commands to let "
          "anyone command)");
  }
  if (!config.server.players.empty() && runtime_why.empty() && !runtime_file.empty())
    say(std::to_string(config.server.players.size()) +
        " players: `herd-ctl players` prints the URL each plays at, on this machine (they are in " +
        runtime_file.string() + ", never in this log)");
  say("WebSocket at " + ws_url);
  event(net::LogLevel::info, "listening",
        {{"url", url},
         {"scenario", sc.name},
         {"tick_rate", number(config.server.tick_rate)},
         {"snapshot_rate", number(config.server.snapshot_rate)},
         {"commands", token_generated                        ? "generated token"
                      : !config.server.command_token.empty() ? "token"
                                                             : "open"}});

  std::optional<app::AgonesLink> agones;
  if (config.agones) {
    const std::string address = config.server.address;
    agones.emplace(
        app::AgonesSdk(config.agones_port),
        app::AgonesServerView{
            [address, port] {
              return app::probe_health(address, port, std::chrono::milliseconds(1000)).healthy;
            },
            [&scenario_mutex, &scenario_name] {
              const std::lock_guard lock(scenario_mutex);
              return scenario_name;
            },
            [&server] { return server.stats().agents; }, config.server.players.size()},
        std::chrono::milliseconds(static_cast<long>(config.agones_health_interval * 1000)),
        [say](const std::string& what) { say(what); }, player_events);
  }

  server.run();  // returns only through stop()
  if (!runtime_file.empty()) {
    std::error_code ignored;  // a file someone removed already is as good
    std::filesystem::remove(runtime_file, ignored);
  }
  const auto stats = server.stats();
  const std::uint64_t hash = server.state_hash();
  if (recorder) recorder->finish(stats.tick, hash);
  if (trajectories) {
    trajectories->capture_final(*server.world());
    if (std::string why = trajectories->close(); !why.empty())
      event(net::LogLevel::error, "trajectory_write_failed",
            {{"file", config.trajectories}, {"reason", why}});
    const auto t = trajectories->stats();
    event(net::LogLevel::info, "trajectories_closed",
          {{"file", config.trajectories},
           {"frames_written", std::to_string(t.frames_written)},
           {"frames_dropped", std::to_string(t.frames_dropped)}});
  }
  if (!config.checkpoint.empty()) {
    if (std::string why =
            app::write_checkpoint(config.checkpoint, *server.world(), running_scenario);
        !why.empty())
      return fail(why);
    event(net::LogLevel::info, "checkpoint_written",
          {{"file", config.checkpoint}, {"tick", std::to_string(server.world()->tick())}});
  }
  if (agones) {
    // After the last checkpoint: Agones may remove the pod as soon as it hears this.
    agones->stop();
    const bool told = app::AgonesSdk(config.agones_port).shutdown();
    say(std::string("Agones: ") + (told ? "Shutdown" : "Shutdown not acknowledged by the sidecar"));
  }
  char hex[24];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(hash));
  say("stopped at tick " + std::to_string(stats.tick) + " (" + std::to_string(stats.overruns) +
      " overruns), state hash " + hex);
  return 0;
}
