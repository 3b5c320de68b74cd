// Shared by the pathing tests: the no-backtracking walker's map, random maps, and brute-force
// reference distances written as differently from astar.cpp / flow_field.cpp as possible (BFS,
// Bellman-Ford).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "grid_graph.hpp"
#include "herd/sim/tile_map.hpp"
#include "rng.hpp"

namespace herd::sim::test_util {

// The "No Backtracking" tutorial's `map` array verbatim: 1 = walkable, 0 = wall (the opposite of
// TileMapDef::cells).
inline constexpr int kSeedMapW = 20;
inline constexpr int kSeedMapH = 15;
inline constexpr std::uint8_t kSeedMap[kSeedMapW * kSeedMapH] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1,
    0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0,
    0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1,
    0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0,
    0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1,
    0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0,
    0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1,
    0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0,
    0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 0, 0,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

inline TileMap seed_map_from_array(double tile_size = 40.0) {
  TileMapDef def{kSeedMapW, kSeedMapH, tile_size, {}};
  for (std::uint8_t v : kSeedMap) def.cells.push_back(v == 1 ? kWalkable : kBlocked);
  return TileMap(def);
}

inline std::string read_map_file(const std::string& name) {
  std::ifstream in(std::string(HERD_MAPS_DIR) + "/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The scenario file server/scenarios/maps/seed_maze.txt, parsed.
inline TileMap seed_maze(double tile_size = 40.0) {
  auto parsed = parse_tile_map(read_map_file("seed_maze.txt"), tile_size);
  if (auto* error = std::get_if<std::string>(&parsed)) ADD_FAILURE() << *error;
  return std::holds_alternative<TileMap>(parsed) ? std::get<TileMap>(std::move(parsed))
                                                 : seed_map_from_array(tile_size);
}

// Each tile blocked with probability wall_fraction (herd's own generator: reproducible anywhere).
inline TileMap random_map(Rng& rng, std::int32_t w, std::int32_t h, double wall_fraction,
                          double tile_size = 1.0) {
  TileMapDef def{w, h, tile_size, {}};
  for (std::int32_t i = 0; i < w * h; ++i)
    def.cells.push_back(rng.next_unit() < wall_fraction ? kBlocked : kWalkable);
  return TileMap(def);
}

inline TileCoord random_tile(Rng& rng, const TileMap& map) {
  return {static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(map.width())),
          static_cast<std::int32_t>(rng.next_u64() % static_cast<std::uint64_t>(map.height()))};
}

inline constexpr double kNoPath = -1.0;

// Reference cheapest costs from `goal` to every tile (kNoPath where none). Four-neighbour:
// breadth-first search, costs are hop counts. Eight-neighbour: Bellman-Ford relaxation of every
// move until nothing changes — slow, obviously correct, and shares no code with A* or Dijkstra
// apart from the move rule itself (can_step), which the tests check separately.
inline std::vector<double> brute_force_costs(const TileMap& map, TileCoord goal, Neighbourhood n) {
  std::vector<double> cost(map.tile_count(), kNoPath);
  if (map.blocked(goal)) return cost;
  cost[map.index(goal)] = 0.0;
  const int steps = step_count(n);
  if (n == Neighbourhood::four) {
    std::vector<TileCoord> frontier{goal};
    for (double hops = 1.0; !frontier.empty(); hops += 1.0) {
      std::vector<TileCoord> next;
      for (TileCoord t : frontier) {
        for (int s = 0; s < steps; ++s) {
          const TileCoord u{t.x + kGridSteps[s].dx, t.y + kGridSteps[s].dy};
          if (map.blocked(u) || cost[map.index(u)] != kNoPath) continue;
          cost[map.index(u)] = hops;
          next.push_back(u);
        }
      }
      frontier = std::move(next);
    }
    return cost;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < cost.size(); ++i) {
      if (cost[i] == kNoPath) continue;
      const TileCoord t = map.coord(i);
      for (int s = 0; s < steps; ++s) {
        if (!can_step(map, t, kGridSteps[s])) continue;
        const std::size_t j = map.index({t.x + kGridSteps[s].dx, t.y + kGridSteps[s].dy});
        const double c = cost[i] + kGridSteps[s].cost;
        if (cost[j] == kNoPath || c < cost[j] - 1e-12) {
          cost[j] = c;
          changed = true;
        }
      }
    }
  }
  return cost;
}

}  // namespace herd::sim::test_util
