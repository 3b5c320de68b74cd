// herd-microbench, whole operations of the sim: one World::step, a slot assignment, an A* query.
//   WorldStep/<n>: one step of the random crowd (crowd.hpp, as herd-bench sim's "random"), on the
//     calling thread, agents that arrived given new targets between steps (untimed). Items:
//     agents stepped.
//   Assign_Hungarian/<n>, Assign_Bisection/<n>: assign_optimal and assign_bisection of n agents
//     at random places in a square to n slots of a circle formation (as herd-bench assign).
//     Items: agents.
//   AStar/<size>: PathFinder::find, 8-neighbour, between random walkable tiles of a size x size
//     map with a quarter of its tiles blocked (as herd-bench pathing); unreachable pairs are
//     kept, as a server meets them. Items: queries; "expanded": tiles expanded per query.
// Results go to docs/performance.md ("Microbenchmarks").
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "assignment.hpp"
#include "astar.hpp"
#include "crowd.hpp"
#include "formation.hpp"
#include "herd/sim/tile_map.hpp"
#include "rng.hpp"

namespace herd::micro {
namespace {

// ---- World::step -------------------------------------------------------------------------------

void WorldStep(benchmark::State& state) {
  sim::Rng rng(7);
  sim::World world = random_crowd(static_cast<std::size_t>(state.range(0)), rng);
  // Past the start, where every agent is still accelerating from rest.
  for (int t = 0; t < 20; ++t) {
    retarget(world, rng);
    world.step();
  }
  for (auto _ : state) {
    state.PauseTiming();
    retarget(world, rng);
    state.ResumeTiming();
    world.step();
    benchmark::DoNotOptimize(world.agents().data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(WorldStep)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond);

// ---- Assignment --------------------------------------------------------------------------------

struct AssignCase {
  std::vector<sim::Vec2> from, to;
  explicit AssignCase(std::size_t n) {
    sim::Rng rng(1);
    const double side = std::sqrt(100.0 * static_cast<double>(n)) * 4;
    from.resize(n);
    for (sim::Vec2& p : from) p = {rng.uniform(0, side), rng.uniform(0, side)};
    sim::FormationDef circle;
    circle.centre = {side / 2, side / 2};
    circle.spacing = 5;
    to = sim::formation_slots(circle, n);
  }
};

void Assign_Hungarian(benchmark::State& state) {
  const AssignCase c(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::vector<std::uint32_t> slot = sim::assign_optimal(c.from, c.to);
    benchmark::DoNotOptimize(slot.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(Assign_Hungarian)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond);

void Assign_Bisection(benchmark::State& state) {
  const AssignCase c(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    std::vector<std::uint32_t> slot = sim::assign_bisection(c.from, c.to);
    benchmark::DoNotOptimize(slot.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(Assign_Bisection)->Arg(2000)->Unit(benchmark::kMicrosecond);

// ---- A* ----------------------------------------------------------------------------------------

void AStar(benchmark::State& state) {
  sim::Rng rng(1);
  const sim::TileMap map = bench::random_map(rng, static_cast<std::int32_t>(state.range(0)), 0.25);
  std::vector<std::pair<sim::TileCoord, sim::TileCoord>> pairs;
  for (int i = 0; i < 256; ++i)
    pairs.emplace_back(bench::random_walkable(rng, map), bench::random_walkable(rng, map));
  sim::PathFinder finder;
  std::vector<sim::TileCoord> path;
  for (const auto& [s, g] : pairs)
    finder.find(map, s, g, sim::Neighbourhood::eight, path);  // buffers at full size
  std::size_t next = 0;
  std::int64_t expanded = 0;
  for (auto _ : state) {
    const auto& [s, g] = pairs[next];
    next = (next + 1) % pairs.size();
    const sim::PathResult r = finder.find(map, s, g, sim::Neighbourhood::eight, path);
    expanded += r.expanded;
    benchmark::DoNotOptimize(path.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["expanded"] =
      static_cast<double>(expanded) / static_cast<double>(state.iterations());
}
BENCHMARK(AStar)->Arg(128)->Arg(256)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace herd::micro
