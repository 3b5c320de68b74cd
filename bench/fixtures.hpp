// What the benchmarks build (herd-bench and herd-microbench): the random crowd's placement and
// random tile maps. The crowd: agents of radius 1.5 uniform in [1.5, side - 1.5]^2, no two closer
// than two radii, by rejection against a cell list of those placed so far (cells one diameter wide,
// so only the 3x3 around a candidate matter). `placed(p)` is called as each is placed, so a caller
// may draw more (its target) from the same generator in between, in its own order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "herd/sim/tile_map.hpp"
#include "herd/sim/vec2.hpp"
#include "herd/sim/world.hpp"
#include "herd/sim/world_def.hpp"
#include "rng.hpp"

namespace herd::bench {

inline constexpr double kCrowdRadius = 1.5;

// The crowds' world: agents of radius 1.5 at `speed` (1 by default) that reach it in one tick of
// 0.25 s at speed 1, slowing within 2 units of their goal, in a side x side square.
inline sim::WorldDef crowd_def(std::size_t agents, double side, double dt, double speed = 1) {
  sim::WorldDef def;
  def.dt = dt;
  def.seed = 1;
  def.max_agents = static_cast<std::uint32_t>(agents);
  def.agent_defaults.radius = kCrowdRadius;
  def.agent_defaults.max_speed = speed;
  def.agent_defaults.max_force = 4 * speed;
  def.agent_defaults.slow_radius = 2;
  def.width = def.height = side;
  return def;
}

template <class Placed>
void place_crowd(double side, std::size_t agents, sim::Rng& rng, Placed&& placed) {
  const double gap = 2 * kCrowdRadius;
  const long cells = std::max(1L, static_cast<long>(side / gap));
  std::vector<std::vector<sim::Vec2>> grid(static_cast<std::size_t>(cells * cells));
  auto cell = [&](double v) { return std::clamp(static_cast<long>(v / gap), 0L, cells - 1); };
  auto clear = [&](sim::Vec2 p) {
    for (long cy = cell(p.y) - 1; cy <= cell(p.y) + 1; ++cy)
      for (long cx = cell(p.x) - 1; cx <= cell(p.x) + 1; ++cx) {
        if (cx < 0 || cy < 0 || cx >= cells || cy >= cells) continue;
        for (sim::Vec2 q : grid[static_cast<std::size_t>(cy * cells + cx)])
          if (sim::length_squared(q - p) < gap * gap) return false;
      }
    return true;
  };
  for (std::size_t i = 0; i < agents; ++i) {
    sim::Vec2 p;
    int attempts = 0;
    do
      p = {rng.uniform(kCrowdRadius, side - kCrowdRadius),
           rng.uniform(kCrowdRadius, side - kCrowdRadius)};
    while (!clear(p) && ++attempts < 100000);
    grid[static_cast<std::size_t>(cell(p.y) * cells + cell(p.x))].push_back(p);
    placed(p);
  }
}

// The random crowd in `world`: `agents` placed as place_crowd places them, each with a target
// drawn at random as it is placed, then `dress(agent)` (a team, a sight...), spawned 1,000 at a
// time.
template <class Dress>
void spawn_random_crowd(sim::World& world, double side, std::size_t agents, sim::Rng& rng,
                        Dress&& dress) {
  std::vector<sim::SpawnAgent> chunk;
  place_crowd(side, agents, rng, [&](sim::Vec2 p) {
    sim::SpawnAgent s;
    s.position = p;
    s.target = sim::Vec2{rng.uniform(0, side), rng.uniform(0, side)};
    dress(s);
    chunk.push_back(s);
    if (chunk.size() == 1000) {
      world.apply(sim::Spawn{0, 0, chunk});
      chunk.clear();
    }
  });
  if (!chunk.empty()) world.apply(sim::Spawn{0, 0, chunk});
}

// A side x side map of unit tiles, each blocked with probability `walls`.
inline sim::TileMap random_map(sim::Rng& rng, std::int32_t side, double walls) {
  sim::TileMapDef def{side, side, 1.0, {}};
  def.cells.reserve(static_cast<std::size_t>(side) * static_cast<std::size_t>(side));
  for (std::int64_t i = 0; i < std::int64_t{side} * side; ++i)
    def.cells.push_back(rng.next_unit() < walls ? sim::kBlocked : sim::kWalkable);
  return sim::TileMap(std::move(def));
}

// A uniformly random walkable tile (the map must have one).
inline sim::TileCoord random_walkable(sim::Rng& rng, const sim::TileMap& map) {
  for (;;) {
    const sim::TileCoord t{
        static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(map.width())),
        static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(map.height()))};
    if (map.walkable(t)) return t;
  }
}

}  // namespace herd::bench
