// herd-bench budget — the worst tick while a heavy command runs: what the tick budget is for.
//
// Each case builds a world, lets it settle (untimed), applies one command and times every tick
// (the command's apply and the step, as the server's tick does) for a window of ticks after it:
//   set_tiles   a 1000 x 60 map, N agents with A* paths across it; a set_tiles then puts up a
//               serpentine of walls that makes every path stale at once
//   formation   an optimal formation assignment of 2,000 agents
//   step        `step 1000` while paused: 1000 world steps, and how the server slices them
//   flow_goals  a 250 x 187 open map in 800 x 600, 100 agents on flow pathing, each sent to a
//               goal tile of its own: more distinct fields than the cache keeps (64)
//   obstacles   1,000 agents among 8,669 obstacles of radius 0.5; then one more of radius 300
//   swap_places N agents of radius 3 (default 5,000) in 800 x 600 sent to each other's places:
//               every member's reciprocal avoidance at once
// --budget sets WorldDef::path_expansions_per_tick; 1000000000 plans every stale path in the tick
// it is asked for, as the server did before the path queue.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench.hpp"
#include "herd/sim/world.hpp"
#include "rng.hpp"

namespace herd::bench {
namespace {

constexpr int kMapW = 1000, kMapH = 60;
constexpr double kTile = 10;
// Ticks `step N` runs per slice in the server (LocalWorld::kStepSliceTicks,
// server/net/local_world.hpp).
constexpr int kStepSlice = 4;

using Clock = std::chrono::steady_clock;

struct Times {
  std::vector<double> ms;
  void add(Clock::time_point t0) {
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  double at(double q) {
    std::vector<double> s = ms;
    std::sort(s.begin(), s.end());
    return s.empty() ? 0
                     : s[std::min(s.size() - 1,
                                  static_cast<std::size_t>(q * static_cast<double>(s.size())))];
  }
};

double tick(sim::World& w, Times& times) {
  const auto t0 = Clock::now();
  w.step();
  times.add(t0);
  return times.ms.back();
}

void row(const char* name, long agents, std::uint32_t budget, Times& t, const sim::World& w) {
  const double worst = *std::max_element(t.ms.begin(), t.ms.end());
  std::printf("%s,%ld,%u,%zu,%.2f,%.2f,%.2f,%zu\n", name, agents, budget, t.ms.size(), worst,
              t.at(0.99), t.at(0.5), w.path_queue_stats().queued);
  std::fflush(stdout);
}

sim::WorldDef def_for(std::uint32_t budget) {
  sim::WorldDef d;
  d.width = kMapW * kTile;
  d.height = kMapH * kTile;
  d.path_expansions_per_tick = budget;
  return d;
}

void run_set_tiles(long agents, std::uint32_t budget, int ticks) {
  sim::World w(def_for(budget));
  sim::TileMapDef m{kMapW, kMapH, kTile, std::vector<std::uint8_t>(kMapW * kMapH, 0)};
  w.apply(sim::LoadMap{m});
  std::vector<sim::SpawnAgent> spawns;
  sim::Rng rng(7);
  for (long k = 0; k < agents; ++k) {
    sim::SpawnAgent s;
    s.position = {rng.uniform(20, 1500), rng.uniform(20, kMapH * kTile - 20)};
    s.radius = 3;
    spawns.push_back(s);
  }
  w.apply(sim::Spawn{0, 0, spawns});
  w.apply(sim::SetPathing{{true, {}}, sim::Pathing::astar, 8});
  sim::SetTarget go;
  go.agents.all = true;
  go.target_tile = sim::TileCoord{kMapW - 5, kMapH / 2};
  w.apply(go);
  for (int t = 0; t < 100000 && (t < 2 || w.path_queue_stats().queued > 0); ++t)
    w.step();  // settle
  // A serpentine: a wall every 100 columns east of the crowd, open at alternate ends.
  sim::SetTiles walls;
  for (int x = 200, k = 0; x < kMapW - 20; x += 100, ++k)
    for (int y = 0; y < kMapH - 3; ++y) walls.tiles.push_back({{x, k % 2 ? y + 3 : y}, true});
  w.apply(walls);
  Times t;
  for (int k = 0; k < ticks; ++k) tick(w, t);
  row("set_tiles", agents, budget, t, w);
}

void run_formation(long agents, int ticks) {
  sim::WorldDef d;
  d.width = d.height = 4000;
  sim::World w(d);
  std::vector<sim::SpawnAgent> spawns;
  sim::Rng rng(3);
  for (long k = 0; k < agents; ++k) {
    sim::SpawnAgent s;
    s.position = {rng.uniform(20, 3980), rng.uniform(20, 3980)};
    s.radius = 3;
    spawns.push_back(s);
  }
  w.apply(sim::Spawn{0, 0, spawns});
  w.step();
  sim::Form form;
  form.agents.all = true;
  form.def.shape = sim::Shape::block;
  form.def.centre = {2000, 2000};
  form.def.assignment = sim::SlotAssignment::optimal;
  w.apply(form);
  Times t;
  int done_at = -1;
  for (int k = 0; k < ticks; ++k) {
    tick(w, t);
    if (done_at < 0 && w.assignments_pending() == 0) done_at = k + 1;
  }
  row("formation", agents, 0, t, w);
  std::printf("formation,%ld,assignment done after %d ticks (of %d timed; -1: not yet)\n", agents,
              done_at, ticks);
}

// `step 1000` while paused: the whole run in one handler (as before slicing) and its slices.
void run_step(int steps) {
  sim::World w(def_for(sim::WorldDef{}.path_expansions_per_tick));
  w.apply(sim::Spawn{1000, 0, {}});
  Times slices;
  const auto all = Clock::now();
  for (int s = 0; s < steps; s += kStepSlice) {
    const auto t0 = Clock::now();
    for (int k = 0; k < kStepSlice && s + k < steps; ++k) w.step();
    slices.add(t0);
  }
  const double whole = std::chrono::duration<double, std::milli>(Clock::now() - all).count();
  std::printf(
      "step,1000,%d steps in one handler: %.1f ms; in slices of %d ticks: worst slice %.2f ms, p99 "
      "%.2f ms\n",
      steps, whole, kStepSlice, *std::max_element(slices.ms.begin(), slices.ms.end()),
      slices.at(0.99));
}

void run_flow_goals(long agents, std::uint32_t budget, int ticks) {
  sim::WorldDef d;
  d.path_expansions_per_tick = budget;
  sim::World w(d);
  constexpr int kW = 250, kH = 187;
  w.apply(sim::LoadMap{{kW, kH, 3.2, std::vector<std::uint8_t>(kW * kH, 0)}});
  std::vector<sim::SpawnAgent> spawns;
  for (long k = 0; k < agents; ++k) {
    sim::SpawnAgent s;
    s.position = {10 + 7.5 * static_cast<double>(k % 100),
                  580 - 10.0 * static_cast<double>(k / 100)};
    s.radius = 2;
    spawns.push_back(s);
  }
  w.apply(sim::Spawn{0, 0, spawns});
  w.apply(sim::SetPathing{{true, {}}, sim::Pathing::flow, 8});
  Times t;
  const auto t0 = Clock::now();
  for (long k = 0; k < agents; ++k) {  // one command each, as a client sends them
    sim::SetTarget go;
    go.agents.ids = {w.agents()[static_cast<std::size_t>(k)].id};
    go.target_tile = sim::TileCoord{static_cast<int>(k % kW), static_cast<int>(1 + k / kW)};
    w.apply(go);
  }
  w.step();
  t.add(t0);
  for (int k = 1; k < ticks; ++k) tick(w, t);
  row("flow_goals", agents, budget, t, w);
  const sim::PathQueueStats s = w.path_queue_stats();
  std::printf("flow_goals,%ld,fields kept %zu, waiting %zu, built %llu\n", agents, s.fields_kept,
              s.fields_waiting, static_cast<unsigned long long>(s.fields_built_total));
}

void run_obstacles(long agents, int ticks) {
  sim::WorldDef d;
  d.max_obstacles = 20000;
  sim::World w(d);
  sim::Rng rng(5);
  w.apply(sim::Spawn{static_cast<std::uint32_t>(agents), 0, {}});
  for (int k = 0; k < 8669; ++k)
    w.apply(sim::AddObstacle{{rng.uniform(1, 799), rng.uniform(1, 599)}, 0.5});
  for (int k = 0; k < 20; ++k) w.step();
  Times small;
  for (int k = 0; k < ticks; ++k) tick(w, small);
  row("obstacles", agents, 0, small, w);
  w.apply(sim::AddObstacle{{400, 300}, 300});
  Times large;
  for (int k = 0; k < ticks; ++k) tick(w, large);
  row("obstacles+r300", agents, 0, large, w);
}

void run_swap_places(long agents, int ticks) {
  sim::WorldDef d;
  d.agent_defaults.radius = 3;
  sim::World w(d);
  w.apply(sim::Spawn{static_cast<std::uint32_t>(agents), 0, {}});
  w.step();
  sim::Demo swap;
  swap.agents.all = true;
  swap.move = sim::DemoMove::swap_places;
  w.apply(swap);
  Times t;
  for (int k = 0; k < ticks; ++k) tick(w, t);
  row("swap_places", agents, 0, t, w);
}

struct Options {
  std::string which = "all";
  long agents = 0, ticks = 600;
  long budget = sim::WorldDef{}.path_expansions_per_tick;
};

int run_tick_budget(const Options& o) {
  const std::string& which = o.which;
  const long agents = o.agents, ticks = o.ticks, budget = o.budget;
  std::printf("case,agents,path_budget,ticks,worst_ms,p99_ms,p50_ms,path_queue_after\n");
  const auto b = static_cast<std::uint32_t>(budget);
  if (which == "all" || which == "set_tiles") {
    if (agents)
      run_set_tiles(agents, b, static_cast<int>(ticks));
    else
      for (long n : {1000L, 5000L}) run_set_tiles(n, b, static_cast<int>(ticks));
  }
  if (which == "all" || which == "formation")
    run_formation(agents ? agents : 2000, static_cast<int>(ticks));
  if (which == "all" || which == "step") run_step(1000);
  if (which == "all" || which == "flow_goals")
    run_flow_goals(agents ? agents : 100, b, static_cast<int>(ticks));
  if (which == "all" || which == "obstacles")
    run_obstacles(agents ? agents : 1000, static_cast<int>(ticks));
  if (which == "all" || which == "swap_places")
    run_swap_places(agents ? agents : 5000, static_cast<int>(ticks));
  return 0;
}

}  // namespace

Runner add_tick_budget(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option(
         "--case", o->which,
         "which command (all: set_tiles with 1000 and 5000 agents, formation 2000, step 1000, "
         "flow_goals 100, obstacles 1000, swap_places 5000)")
      ->check(CLI::IsMember(
          {"all", "set_tiles", "formation", "step", "flow_goals", "obstacles", "swap_places"}))
      ->capture_default_str();
  sub.add_option("--agents", o->agents, "agents for set_tiles or formation")
      ->check(CLI::Range(1, 20000));
  sub.add_option("--budget", o->budget, "path expansions per tick (default: the WorldDef's)")
      ->check(CLI::Range(1, 1'000'000'000))
      ->capture_default_str();
  sub.add_option("--ticks", o->ticks, "ticks timed after the command")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub.footer(
      "formation: the assignment budget is the WorldDef's. Prints a CSV header and one row per "
      "case:\n"
      "worst, p99 and median tick in ms, and the path queue left at the end of the window.");
  return [o] { return run_tick_budget(*o); };
}

}  // namespace herd::bench
