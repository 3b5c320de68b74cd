// herd-bench players — what fog of war costs the server, on the random crowd (sim_bench.cpp's:
// N agents placed uniformly without overlap, A square units each, arriving at random points)
// split into --teams teams, the agents dealt to them in turn, every one with sight --sight.
//
// Per snapshot, the server's own work for its clients, measured apart from the step:
//   - without players: the whole world's JSON, once (what every JSON viewer shares);
//   - with players: that (the spectators', kept for their delay), the fog (World::seen_by: which
//     teams see each agent, once for all teams) and each team's filtered JSON, once per team and
//     shared by its players, so the work does not grow with the players of a team.
//   - binary players instead (net::BinaryFeed, as the server encodes them): the quantisation and
//     each team's frame, a delta on the frame before (a player acknowledges every frame), shared
//     by the team's players; and --spectators binary spectators of the whole world, whose frames
//     (the delayed feed's, one quantisation more) are one shared frame a snapshot.
// --walls adds straight walls at random that block the teams' sight (the fog then tests each
// pair's line); the teams' memories (explored ground and ghosts, publish::TeamMemory) are
// updated each snapshot as the server does.
// Printed: the step's median, each part's median, the fog's and the teams' snapshots' work spread
// over the ticks of a snapshot interval as shares of the step, and the bytes a player receives.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "bench.hpp"
#include "fixtures.hpp"
#include "herd/sim/world.hpp"
#include "net/binary_feed.hpp"
#include "publish/team_memory.hpp"
#include "publish/world_messages.hpp"
#include "rng.hpp"

namespace herd::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  long agents = 10000;
  double density = 100;
  long teams = 8;
  double sight = 200;
  double rate = 20;
  double tick_rate = 60;
  long snapshots = 60;
  long spectators = 100;
  long walls = 0;
};

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(const Options& o) {
  sim::Rng rng(7);
  const double side = std::sqrt(o.density * static_cast<double>(o.agents));
  sim::World world(crowd_def(static_cast<std::size_t>(o.agents), side, 1.0 / o.tick_rate));
  // --walls straight walls of 100 units at seeded places and angles, which block sight.
  for (long k = 0; k < o.walls; ++k) {
    const sim::Vec2 a{rng.uniform(1, side - 1), rng.uniform(1, side - 1)};
    const double angle = rng.uniform(0, 6.283185307179586);
    const sim::Vec2 b{std::clamp(a.x + 100 * std::cos(angle), 1.0, side - 1),
                      std::clamp(a.y + 100 * std::sin(angle), 1.0, side - 1)};
    if (!world.apply(sim::AddWall{{a, b}}).ok()) return 1;
  }
  std::size_t placed = 0;  // dealt to the teams in turn
  spawn_random_crowd(world, side, static_cast<std::size_t>(o.agents), rng, [&](sim::SpawnAgent& a) {
    a.team = static_cast<std::uint8_t>(1 + placed++ % static_cast<std::size_t>(o.teams));
    a.sight = o.sight;
  });
  const long every = std::max(1L, std::lround(o.tick_rate / o.rate));
  std::vector<double> step_ms, whole_ms, fog_ms, memory_ms, teams_ms, bytes_per_team;
  publish::TeamMemory memory;  // every team's explored ground and ghosts, as the server keeps them
  std::vector<std::uint64_t> seen;
  // Binary: one viewer per team (its players share its frames), and the spectators.
  net::BinaryFeed feed, delayed;
  std::vector<net::BinaryViewer> players(static_cast<std::size_t>(o.teams)),
      spectators(static_cast<std::size_t>(o.spectators));
  std::vector<net::BinaryViewer*> player_ptrs, spectator_ptrs;
  for (std::size_t t = 0; t < players.size(); ++t) {
    players[t].set_team(static_cast<std::uint8_t>(t + 1));
    player_ptrs.push_back(&players[t]);
  }
  for (auto& v : spectators) spectator_ptrs.push_back(&v);
  net::BinaryViewer viewer;  // a whole-world viewer: what a server without players encodes
  net::BinaryViewer* viewer_ptr[] = {&viewer};
  std::vector<net::SharedBytes> frames;
  std::vector<double> quantise_ms, binary_ms, binary_bytes, spectators_ms, viewer_ms;
  for (long s = 0; s < o.snapshots; ++s) {
    for (long t = 0; t < every; ++t) {
      const auto t0 = Clock::now();
      world.step();
      step_ms.push_back(ms_since(t0));
    }
    auto t0 = Clock::now();
    const std::string whole = publish::encode_snapshot(world, {}, {}, 1, {0, nullptr, true});
    whole_ms.push_back(ms_since(t0));
    t0 = Clock::now();
    world.seen_by(seen);
    fog_ms.push_back(ms_since(t0));
    t0 = Clock::now();
    for (long team = 1; team <= o.teams; ++team)
      memory.update(world, static_cast<std::uint8_t>(team), seen, world.events());
    memory_ms.push_back(ms_since(t0));
    t0 = Clock::now();
    double bytes = 0;
    for (long team = 1; team <= o.teams; ++team)
      bytes += static_cast<double>(
          publish::encode_snapshot(world, {}, {}, 1, {static_cast<std::uint8_t>(team), &seen, true})
              .size());
    teams_ms.push_back(ms_since(t0));
    bytes_per_team.push_back(bytes / static_cast<double>(o.teams));
    if (whole.empty()) return 1;  // keeps the text from being optimised away
    t0 = Clock::now();
    feed.begin(world, {}, static_cast<std::uint64_t>(s + 1));
    quantise_ms.push_back(ms_since(t0));
    t0 = Clock::now();
    feed.frames_for(viewer_ptr, frames, nullptr);
    viewer_ms.push_back(ms_since(t0));
    viewer.on_ack(world.tick());
    t0 = Clock::now();
    feed.set_seen(seen);
    feed.frames_for(player_ptrs, frames, nullptr);
    binary_ms.push_back(ms_since(t0));
    double team_bytes = 0;
    for (std::size_t t = 0; t < players.size(); ++t) {
      team_bytes += frames[t] ? static_cast<double>(frames[t]->size()) : 0;
      players[t].on_ack(world.tick());
    }
    binary_bytes.push_back(team_bytes / static_cast<double>(o.teams));
    t0 = Clock::now();
    delayed.begin(world, {}, static_cast<std::uint64_t>(s + 1));
    delayed.frames_for(spectator_ptrs, frames, nullptr);
    spectators_ms.push_back(ms_since(t0));
    for (auto& v : spectators) v.on_ack(world.tick());
  }
  const double step = median(step_ms), fog = median(fog_ms), teams = median(teams_ms);
  const auto per_tick_pct = [&](double ms) {
    return 100.0 * ms / static_cast<double>(every) / step;
  };
  const double binary = median(binary_ms), quantised = median(quantise_ms),
               spectating = median(spectators_ms), viewing = median(viewer_ms);
  std::printf(
      "agents,teams,sight,walls,step_ms,whole_json_ms,fog_ms,fog_pct_of_step,memory_ms,"
      "memory_pct_of_step,team_json_ms,team_json_pct_of_step,player_bytes_per_snapshot,"
      "player_kb_per_s\n");
  std::printf("%ld,%ld,%g,%ld,%.3f,%.3f,%.3f,%.1f,%.3f,%.1f,%.3f,%.1f,%.0f,%.1f\n", o.agents,
              o.teams, o.sight, o.walls, step, median(whole_ms), fog, per_tick_pct(fog),
              median(memory_ms), per_tick_pct(median(memory_ms)), teams, per_tick_pct(teams),
              median(bytes_per_team), median(bytes_per_team) * o.rate / 1000.0);
  // Added by players: the fog and the teams' frames, in place of the one whole-world frame that
  // binary viewers of a server without players share.
  std::printf(
      "binary: quantise_ms,viewer_frame_ms,team_frames_ms,added_by_players_pct_of_step,"
      "player_binary_bytes_per_snapshot,player_binary_kb_per_s,spectators,spectator_frames_ms,"
      "spectators_pct_of_step\n");
  std::printf("binary: %.3f,%.3f,%.3f,%.1f,%.0f,%.1f,%ld,%.3f,%.1f\n", quantised, viewing, binary,
              per_tick_pct(fog + binary - viewing), median(binary_bytes),
              median(binary_bytes) * o.rate / 1000.0, o.spectators, spectating,
              per_tick_pct(spectating));
  return 0;
}

}  // namespace

Runner add_players(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("--agents", o->agents, "agents")
      ->check(CLI::Range(10, 1'000'000))
      ->capture_default_str();
  sub.add_option("--teams", o->teams, "teams, [1, 63]")
      ->check(CLI::Range(1, 63))
      ->capture_default_str();
  sub.add_option("--sight", o->sight, "every agent's sight, units")
      ->check(CLI::Range(0.0, 1e5))
      ->capture_default_str();
  sub.add_option("--walls", o->walls, "walls of 100 units at random, blocking sight")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  sub.add_option("--density", o->density, "square units per agent")
      ->check(CLI::Range(10.0, 1e6))
      ->capture_default_str();
  sub.add_option("--rate", o->rate, "snapshots per second")
      ->check(CLI::Range(1e-3, 1000.0))
      ->capture_default_str();
  sub.add_option("--spectators", o->spectators, "binary spectators of the whole world")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  sub.add_option("--snapshots", o->snapshots, "snapshots measured")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace herd::bench
