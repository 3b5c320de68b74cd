// herd-server: flags and environment, wiring, signals.
#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <thread>

#include "app/config.hpp"
#include "app/checkpoint_file.hpp"
#include "app/agones.hpp"
#include "app/headless.hpp"
#include "app/probe.hpp"
#include "app/recording.hpp"
#include "net/server.hpp"
#include "scenarios/scenario.hpp"

namespace {

int fail(const std::string& message) {
  std::cerr << "herd-server: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace herd;
  const auto parsed = app::parse_config(std::vector<std::string>(argv + 1, argv + argc), app::process_env());
  if (!parsed.config) return fail(parsed.error);
  app::AppConfig config = *parsed.config;
  if (config.help) {
    std::cout << app::help_text();
    return 0;
  }
  if (config.probe) {
    // Exit 0 when the server answers /healthz with 200, 1 otherwise (what a health check wants).
    const auto result = app::probe_health(config.server.address, config.server.port);
    std::cout << "herd: " << (result.healthy ? "healthy" : "unhealthy") << " (" << result.detail << ")" << std::endl;
    return result.healthy ? 0 : 1;
  }
  if (!config.replay.empty()) {
    // Exit 0 when the replay ends on the recorded hash (or the run was not ended cleanly), 1 when
    // it differs.
    const auto result = app::replay(config.replay, config.scenario_dir);
    if (auto* why = std::get_if<std::string>(&result)) return fail(*why);
    const auto& r = std::get<app::ReplayResult>(result);
    std::cout << "herd: replayed " << r.commands << " commands to tick " << r.end_tick << ", state hash 0x" << std::hex
              << r.state_hash << std::dec;
    if (r.recorded_hash) std::cout << (*r.recorded_hash == r.state_hash ? " (matches the recording)" : " (DIFFERS from the recording)");
    std::cout << std::endl;
    return r.recorded_hash && *r.recorded_hash != r.state_hash ? 1 : 0;
  }
  if (!config.headless && !std::filesystem::is_directory(config.server.web_root))
    return fail("web root '" + config.server.web_root + "' is not a directory (set --web-root or HERD_WEB_ROOT)");

  auto loaded = scenario::load(config.scenario, config.scenario_dir);
  if (auto* why = std::get_if<std::string>(&loaded)) return fail(*why);
  scenario::Scenario& sc = std::get<scenario::Scenario>(loaded);
  // The server's tick rate is the world's: dt = 1 / tick rate, fixed.
  if (config.max_agents) sc.def.max_agents = *config.max_agents;
  if (config.tick_rate_given) sc.def.dt = 1.0 / config.server.tick_rate;
  else config.server.tick_rate = 1.0 / sc.def.dt;
  if (config.server.snapshot_rate > config.server.tick_rate)
    return fail("snapshot rate " + std::to_string(config.server.snapshot_rate) + " exceeds tick rate " +
                std::to_string(config.server.tick_rate));
  auto world = scenario::build_world(sc, config.seed);
  if (auto* why = std::get_if<std::string>(&world)) return fail(*why);
  bool restored = false;
  if (!config.checkpoint.empty() && config.restore && std::filesystem::exists(config.checkpoint) && !config.headless) {
    // A checkpoint that cannot be read stops the server: starting fresh would overwrite the world
    // it holds. Only --restore=0 (or removing the file) starts fresh.
    auto from_disk = app::read_checkpoint(config.checkpoint);
    if (auto* why = std::get_if<std::string>(&from_disk))
      return fail(*why + "; start fresh with --restore=0 (HERD_RESTORE=0), which overwrites it");
    world = std::move(std::get<sim::World>(from_disk));
    config.server.tick_rate = 1.0 / std::get<sim::World>(world).def().dt;  // the world's own dt
    restored = true;
  }

  if (config.headless) {
    const auto result = app::run_headless(std::get<sim::World>(world), config.ticks);
    if (config.report) std::cout << app::report_json(sc.name, result) << std::endl;
    else std::cout << "herd: " << sc.name << " ran " << result.final_tick << " ticks, state hash 0x" << std::hex
                   << result.state_hash << std::dec << std::endl;
    return 0;
  }

  // SIGINT/SIGTERM are blocked here, before any thread starts, and taken by one waiting thread, so
  // no handler runs in the middle of the server's work.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::optional<app::Recorder> recorder;
  if (!config.record.empty()) {
    std::string why;
    const std::uint64_t seed = config.seed.value_or(sc.def.seed);  // the one the world was built with
    recorder = app::Recorder::open(config.record, {config.scenario, seed, config.server.tick_rate}, why);
    if (!recorder) return fail(why);
    config.server.on_applied = [&recorder](std::uint64_t tick, const sim::Command& c) { recorder->record(tick, c); };
  }
  if (!config.checkpoint.empty()) {
    config.server.checkpoint_interval = config.checkpoint_interval;
    config.server.on_checkpoint = [&config](const sim::World& w) {
      if (std::string why = app::write_checkpoint(config.checkpoint, w); !why.empty())
        std::cout << net::format_log(net::LogLevel::error, "checkpoint_failed", {{"reason", why}}) << std::endl;
    };
  }
  // reset and load_scenario build worlds the way start-up does.
  config.server.scenario = config.scenario;
  config.server.scenario_name = sc.name;
  config.server.list_scenarios = [dir = config.scenario_dir] { return scenario::list(dir); };
  config.server.load_world = [dir = config.scenario_dir, max_agents = config.max_agents](
                                  const std::string& name, std::optional<std::uint64_t> seed) -> std::variant<sim::World, std::string> {
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
  config.server.on_world_replaced = [&recorder, &scenario_mutex, &scenario_name](const std::string& name, const sim::World& w) {
    if (recorder) recorder->world_replaced({name, w.def().seed, 1.0 / w.def().dt});
    const std::lock_guard lock(scenario_mutex);
    scenario_name = name;
  };
  // Log lines go to standard output, one per event (Docker and journald collect them as they are).
  config.server.log = [](std::string_view line) { std::cout << line << std::endl; };
  const std::size_t agent_count = std::get<sim::World>(world).agents().size();
  net::Server server(config.server, std::move(std::get<sim::World>(world)));
  std::uint16_t port = 0;
  try {
    port = server.start();
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  const std::string host = config.server.address == "0.0.0.0" ? "127.0.0.1" : config.server.address;
  if (restored)
    std::cout << "herd: restored from checkpoint " << config.checkpoint << " at tick " << std::get<sim::World>(world).tick() << "\n";
  std::cout << "herd: scenario '" << sc.name << "', " << agent_count << " agents, "
            << config.server.tick_rate << " ticks/s, " << config.server.snapshot_rate << " snapshots/s\n"
            << "herd: listening on http://" << host << ":" << port << "/\n"
            << "herd: open http://localhost:" << port << "/ in a browser; WebSocket at ws://localhost:" << port
            << "/ws" << std::endl;
  std::cout << net::format_log(net::LogLevel::info, "listening",
                               {{"url", "http://" + host + ":" + std::to_string(port) + "/"},
                                {"scenario", sc.name},
                                {"tick_rate", std::to_string(config.server.tick_rate)},
                                {"snapshot_rate", std::to_string(config.server.snapshot_rate)}})
            << std::endl;

  std::optional<app::AgonesLink> agones;
  if (config.agones) {
    const std::string address = config.server.address;
    agones.emplace(app::AgonesSdk(config.agones_port),
                   app::AgonesServerView{
                       [address, port] { return app::probe_health(address, port, std::chrono::milliseconds(1000)).healthy; },
                       [&scenario_mutex, &scenario_name] {
                         const std::lock_guard lock(scenario_mutex);
                         return scenario_name;
                       },
                       [&server] { return server.stats().agents; }},
                   std::chrono::milliseconds(static_cast<long>(config.agones_health_interval * 1000)),
                   [](const std::string& what) { std::cout << "herd: " << what << std::endl; });
  }

  std::atomic<bool> finished{false};
  std::thread signal_waiter([&server, &signals, &finished] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (finished) return;
    std::cout << "herd: " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << ", shutting down" << std::endl;
    server.stop();
  });
  server.run();
  // run() returns only through stop(); wake the waiter if no signal did.
  finished = true;
  pthread_kill(signal_waiter.native_handle(), SIGTERM);
  signal_waiter.join();
  const auto stats = server.stats();
  const std::uint64_t hash = server.state_hash();
  if (recorder) recorder->finish(stats.tick, hash);
  if (!config.checkpoint.empty()) {
    if (std::string why = app::write_checkpoint(config.checkpoint, server.world()); !why.empty()) return fail(why);
    std::cout << net::format_log(net::LogLevel::info, "checkpoint_written",
                                 {{"file", config.checkpoint}, {"tick", std::to_string(server.world().tick())}})
              << std::endl;
  }
  if (agones) {
    // After the last checkpoint: Agones may remove the pod as soon as it hears this.
    agones->stop();
    const bool told = app::AgonesSdk(config.agones_port).shutdown();
    std::cout << "herd: Agones: " << (told ? "Shutdown" : "Shutdown not acknowledged by the sidecar") << std::endl;
  }
  std::cout << "herd: stopped at tick " << stats.tick << " (" << stats.overruns << " overruns), state hash 0x" << std::hex
            << hash << std::dec << std::endl;
  return 0;
}
