// herd-bench pathing — what A* and flow fields cost on a seeded random map.
//
// The map is size x size tiles, each blocked with probability --walls, drawn from herd's own
// generator (so every machine benchmarks the same map). Queries join random walkable tiles;
// pairs with no path between them are kept, as a server meets them too (an unreachable query
// floods the start's whole area). Buffers are warmed up before timing: the figures are those of
// a long-running server's PathFinder and FlowField, which allocate nothing per query.
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "astar.hpp"
#include "bench.hpp"
#include "fixtures.hpp"
#include "flow_field.hpp"
#include "herd/sim/tile_map.hpp"
#include "rng.hpp"

namespace herd::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::int64_t size = 256;
  std::int64_t queries = 1000;
  double walls = 0.25;
  std::int64_t fields = 10;
  std::int64_t seed = 1;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct AStarFigures {
  double us_per_query = 0.0;
  double expanded_per_query = 0.0;
  double found_fraction = 0.0;
  double mean_cost = 0.0;  // of the paths found, in tiles
};

AStarFigures time_astar(const sim::TileMap& map,
                        const std::vector<std::pair<sim::TileCoord, sim::TileCoord>>& pairs,
                        sim::Neighbourhood n) {
  sim::PathFinder finder;
  std::vector<sim::TileCoord> path;
  for (const auto& [s, g] : pairs)
    finder.find(map, s, g, n, path);  // warm-up: buffers at full size
  std::uint64_t expanded = 0, found = 0;
  double cost = 0.0;
  const Clock::time_point start = Clock::now();
  for (const auto& [s, g] : pairs) {
    const sim::PathResult r = finder.find(map, s, g, n, path);
    expanded += r.expanded;
    if (r.found()) {
      ++found;
      cost += r.cost;
    }
  }
  const double elapsed = seconds_since(start);
  const auto count = static_cast<double>(pairs.size());
  return {elapsed * 1e6 / count, static_cast<double>(expanded) / count,
          static_cast<double>(found) / count, found ? cost / static_cast<double>(found) : 0.0};
}

struct FlowFigures {
  double ms_per_field = 0.0;
  double reachable_fraction = 0.0;  // of the map's tiles, averaged over the fields
  std::size_t bytes = 0;
};

FlowFigures time_flow(const sim::TileMap& map, const std::vector<sim::TileCoord>& goals) {
  sim::FlowField field;
  field.build(map, goals.front(), sim::Neighbourhood::eight);  // warm-up
  std::uint64_t reachable = 0;
  double elapsed = 0.0;
  for (const sim::TileCoord goal : goals) {
    const Clock::time_point start = Clock::now();
    field.build(map, goal, sim::Neighbourhood::eight);
    elapsed += seconds_since(start);
    // Counted outside the timed part, so the count does not inflate the figure.
    for (std::size_t i = 0; i < map.tile_count(); ++i) reachable += field.reachable(map.coord(i));
  }
  const auto fields = static_cast<double>(goals.size());
  return {elapsed * 1e3 / fields,
          static_cast<double>(reachable) / (fields * static_cast<double>(map.tile_count())),
          field.memory_bytes()};
}

int run_pathing(const Options& o) {
  sim::Rng rng(static_cast<std::uint64_t>(o.seed));
  const sim::TileMap map = random_map(rng, static_cast<std::int32_t>(o.size), o.walls);
  std::vector<std::pair<sim::TileCoord, sim::TileCoord>> pairs;
  for (std::int64_t i = 0; i < o.queries; ++i)
    pairs.emplace_back(random_walkable(rng, map), random_walkable(rng, map));
  std::vector<sim::TileCoord> goals;
  for (std::int64_t i = 0; i < o.fields; ++i) goals.push_back(random_walkable(rng, map));

  const AStarFigures eight = time_astar(map, pairs, sim::Neighbourhood::eight);
  const AStarFigures four = time_astar(map, pairs, sim::Neighbourhood::four);
  const FlowFigures flow = time_flow(map, goals);
  std::printf(
      "size,walls,seed,queries,found_fraction,astar8_us_per_query,astar8_expanded_per_query,astar8_"
      "mean_cost,"
      "astar4_us_per_query,astar4_expanded_per_query,astar4_mean_cost,flow_fields,flow8_ms_per_"
      "field,"
      "flow_reachable_fraction,flow_bytes\n");
  std::printf("%lld,%.3f,%lld,%lld,%.4f,%.2f,%.1f,%.2f,%.2f,%.1f,%.2f,%lld,%.3f,%.4f,%zu\n",
              static_cast<long long>(o.size), o.walls, static_cast<long long>(o.seed),
              static_cast<long long>(o.queries), eight.found_fraction, eight.us_per_query,
              eight.expanded_per_query, eight.mean_cost, four.us_per_query, four.expanded_per_query,
              four.mean_cost, static_cast<long long>(o.fields), flow.ms_per_field,
              flow.reachable_fraction, flow.bytes);
  return 0;
}

}  // namespace

Runner add_pathing(CLI::App& sub) {
  auto o = std::make_shared<Options>();
  sub.add_option("--size", o->size, "map side in tiles")
      ->check(CLI::Range(2, 1024))
      ->capture_default_str();
  sub.add_option("--queries", o->queries, "A* queries per neighbourhood")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  sub.add_option("--walls", o->walls, "probability that a tile is blocked")
      ->check(CLI::Range(0.0, 0.9))
      ->capture_default_str();
  sub.add_option("--fields", o->fields, "flow fields built")
      ->check(CLI::Range(1, 10'000))
      ->capture_default_str();
  sub.add_option("--seed", o->seed, "map and query seed")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub.footer(
      "Prints a CSV header and one row: microseconds and tiles expanded per A* query (8- and\n"
      "4-neighbour), milliseconds per flow field (8-neighbour) and its memory.");
  return [o] { return run_pathing(*o); };
}

}  // namespace herd::bench
