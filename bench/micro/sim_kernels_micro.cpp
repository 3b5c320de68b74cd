// herd-microbench, the sim's inner kernels: what one call costs, per item, in isolation.
//   Avoidance_Batch/<kernel>/<n>, Avoidance_Span/<n>: avoidance_direction for one agent among n
//     neighbours within its push cutoff (what stage_avoidance runs per agent): the batch form with
//     each kernel use_avoidance_kernel offers ("base" SSE2, "avx2", "avx512"; skipped where
//     missing), and the span form (the scalar per-neighbour push, what a traced agent runs).
//     Items: neighbours.
//   NeighbourScan/<kernel>/<n>: gather_neighbours' search for every agent of the random crowd:
//     the grid's runs within the push reach, the filter kernel, then keep_nearest down to the cap
//     of 16, with the scan kernels "base" and "avx512". Items: agents; "kept": neighbours found
//     per agent.
//   SpatialGridRebuild/<n>: the grid's counting sort of the crowd's positions. Items: points.
//   Rng_NextU64, Rng_NextUnit: splitmix64 (Rng::next_u64) and Rng::next_unit. Items: numbers drawn.
// Results go to docs/performance.md ("Microbenchmarks").
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "avoidance.hpp"
#include "crowd.hpp"
#include "neighbour_scan.hpp"
#include "rng.hpp"
#include "spatial_grid.hpp"

namespace herd::micro {
namespace {

// ---- Avoidance ---------------------------------------------------------------------------------

// The agent at the origin moving along +x at its preferred speed 1, and n others of the crowd's
// radius, uniform in the ring between touching (two radii) and the push cutoff, each moving at
// speed 1 in a random direction: every one of them pushes.
struct AvoidanceCase {
  sim::AvoidanceDef def;
  sim::Mover self{{0, 0}, {1, 0}, kRadius, {1, 0}};
  std::vector<sim::Neighbour> list;
  sim::NeighbourBatch batch;

  explicit AvoidanceCase(std::size_t n) {
    sim::Rng rng(11);
    const double inner = 2 * kRadius, outer = sim::push_cutoff(def, 2 * kRadius);
    for (std::uint32_t i = 0; i < n; ++i) {
      // Uniform over the ring's area: the radius from the square root of a uniform draw.
      const double r = std::sqrt(rng.uniform(inner * inner, outer * outer));
      const double a = rng.uniform(0, 2 * std::numbers::pi),
                   h = rng.uniform(0, 2 * std::numbers::pi);
      const sim::Neighbour o{
          i + 1, false, {r * std::cos(a), r * std::sin(a)}, {std::cos(h), std::sin(h)}, kRadius};
      list.push_back(o);
      batch.push(o.position, o.velocity, o.radius, false);
    }
  }
};

// The batch form with the kernel `name`; skipped where the processor or the compiler lacks it.
void Avoidance_Batch(benchmark::State& state, const char* name) {
  if (!sim::use_avoidance_kernel(name)) {
    state.SkipWithError("avoidance kernel not available on this processor or compiler");
    return;
  }
  AvoidanceCase c(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.self);
    sim::Vec2 direction = sim::avoidance_direction(c.def, c.self, c.batch);
    benchmark::DoNotOptimize(direction);
    benchmark::ClobberMemory();
  }
  sim::use_avoidance_kernel("");  // back to the widest, what the other benchmarks' steps use
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK_CAPTURE(Avoidance_Batch, base, "base")->Arg(16)->Arg(64);
BENCHMARK_CAPTURE(Avoidance_Batch, avx2, "avx2")->Arg(16)->Arg(64);
BENCHMARK_CAPTURE(Avoidance_Batch, avx512, "avx512")->Arg(16)->Arg(64);

void Avoidance_Span(benchmark::State& state) {
  AvoidanceCase c(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(c.self);
    sim::Vec2 direction = sim::avoidance_direction(c.def, c.self, c.list);
    benchmark::DoNotOptimize(direction);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(Avoidance_Span)->Arg(16)->Arg(64);

// ---- Neighbour scan ----------------------------------------------------------------------------

// The crowd's positions in a grid with the world's cell size, and the search per agent as
// World::gather_neighbours does it with every radius equal: reach and limit from the push
// cutoff, the agent itself excluded, a point target (no subject to skip), the cap of 16.
void NeighbourScan(benchmark::State& state, const char* name) {
  const sim::scan::Kernels* kernels = sim::scan::kernels_named(name);
  if (!kernels) {
    state.SkipWithError("scan kernel not available on this processor or compiler");
    return;
  }
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  sim::Rng rng(7);
  const std::vector<sim::Vec2> points = crowd_positions(n, rng);
  const double side = crowd_side(n);
  const sim::AvoidanceDef def;
  const double reach = sim::push_cutoff(def, 2 * kRadius), reach2 = reach * reach;
  sim::SpatialGrid grid;
  grid.rebuild(points, side, side, sim::SpatialGrid::cell_size_for(n, side, side, reach));
  const std::size_t cap = def.max_neighbours;
  const auto nobody = static_cast<std::uint32_t>(n);
  sim::scan::Candidates found;
  std::vector<std::uint32_t> order;
  std::int64_t kept_total = 0;
  for (auto _ : state) {
    for (std::size_t k = 0; k < grid.size(); ++k) {  // in grid order, as stage_avoidance
      const std::uint32_t self = grid.index(k);
      const sim::Vec2 p = grid.position(k);
      std::size_t m = 0;
      grid.query_runs(p, reach, [&](std::uint32_t begin, std::uint32_t end) {
        found.reserve(m + (end - begin));
        m += kernels->filter(grid.xs(), grid.ys(), grid.items(), begin, end, p.x, p.y, reach2,
                             reach2, self, nobody, found.d2.data() + m, found.slot.data() + m,
                             found.index.data() + m, nullptr);
      });
      if (m > cap) m = kernels->keep_nearest(found, m, cap, reach2, order);
      kept_total += static_cast<std::int64_t>(m);
      benchmark::DoNotOptimize(found.index.data());
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  // Neighbours kept per agent: the size of the avoidance batch this search feeds.
  state.counters["kept"] =
      static_cast<double>(kept_total) / static_cast<double>(state.iterations() * state.range(0));
}
BENCHMARK_CAPTURE(NeighbourScan, base, "base")
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(NeighbourScan, avx512, "avx512")
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMicrosecond);

void SpatialGridRebuild(benchmark::State& state) {
  const std::size_t n = static_cast<std::size_t>(state.range(0));
  sim::Rng rng(7);
  const std::vector<sim::Vec2> points = crowd_positions(n, rng);
  const double side = crowd_side(n);
  const double reach = sim::push_cutoff(sim::AvoidanceDef{}, 2 * kRadius);
  const double cell = sim::SpatialGrid::cell_size_for(n, side, side, reach);
  sim::SpatialGrid grid;
  grid.rebuild(points, side, side, cell);  // warm: the step's grid allocates nothing either
  for (auto _ : state) {
    grid.rebuild(points, side, side, cell);
    benchmark::DoNotOptimize(grid.items());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(SpatialGridRebuild)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

// ---- Rng ---------------------------------------------------------------------------------------

constexpr int kDraws = 1024;  // per iteration, so the loop's own cost is spread thin

void Rng_NextU64(benchmark::State& state) {
  sim::Rng rng(1);
  for (auto _ : state)
    for (int i = 0; i < kDraws; ++i) benchmark::DoNotOptimize(rng.next_u64());
  state.SetItemsProcessed(state.iterations() * kDraws);
}
BENCHMARK(Rng_NextU64);

void Rng_NextUnit(benchmark::State& state) {
  sim::Rng rng(1);
  for (auto _ : state)
    for (int i = 0; i < kDraws; ++i) benchmark::DoNotOptimize(rng.next_unit());
  state.SetItemsProcessed(state.iterations() * kDraws);
}
BENCHMARK(Rng_NextUnit);

}  // namespace
}  // namespace herd::micro
