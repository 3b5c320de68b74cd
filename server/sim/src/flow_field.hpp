// herd::sim::FlowField — one Dijkstra from a goal tile, shared by every agent going there.
//
// Seed 000's "vector field" steers each agent by a direction computed where it stands; here the
// field is computed for walls, once per goal: the cheapest cost to the goal from every tile (the
// same moves and costs as A*, grid_graph.hpp) and, per tile, the step towards the cheapest
// neighbour. Hundreds of agents then read their direction in O(1) instead of running hundreds of
// A* searches.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "astar.hpp"
#include "grid_graph.hpp"
#include "herd/sim/tile_map.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

class FlowField {
 public:
  static constexpr double kUnreachable = -1.0;   // distance() of a tile that cannot reach the goal
  static constexpr std::uint8_t kNoStep = 0xFF;  // step of the goal and of unreachable tiles

  // Builds the field to `goal` on `map`: O(N log N) for the N tiles that can reach it. Returns
  // found, goal_outside or goal_blocked (then every tile is unreachable). Reuses its buffers:
  // rebuilding on a map of the same size allocates nothing past the first build's peak.
  PathStatus build(const TileMap& map, TileCoord goal, Neighbourhood neighbourhood);

  bool built() const { return built_; }  // a build() succeeded
  TileCoord goal() const { return goal_; }
  Neighbourhood neighbourhood() const { return neighbourhood_; }
  // map.revision() at build time: the field is stale once the map's revision differs.
  std::uint64_t map_revision() const { return map_revision_; }

  bool reachable(TileCoord t) const { return in_bounds(t) && distance_[index(t)] >= 0.0; }
  // Cheapest path cost from t to the goal in tiles (A*'s cost), or kUnreachable (off the map,
  // blocked, or cut off from the goal).
  double distance(TileCoord t) const { return in_bounds(t) ? distance_[index(t)] : kUnreachable; }
  // Index into kGridSteps of the move towards the cheapest neighbour (min of step cost + its
  // distance, ties in kGridSteps order, corners never cut), or kNoStep.
  std::uint8_t step(TileCoord t) const { return in_bounds(t) ? step_[index(t)] : kNoStep; }
  // The tile that move leads to; empty at the goal and where unreachable.
  std::optional<TileCoord> next_tile(TileCoord t) const;
  // Unit vector of that move ({0, 0} at the goal and where unreachable): the raw per-tile field.
  Vec2 tile_direction(TileCoord t) const;

  // The steering direction for an agent at world position p: the unit vector from p to the
  // centre of the next tile of p's tile (to the goal tile's centre inside the goal tile); {0, 0}
  // on an unreachable tile, off the map, or exactly on the goal's centre.
  //
  // Why not the tile's own direction, or a bilinear blend of four: heading for the next tile's
  // centre pulls an agent that collisions pushed off-centre back onto the path instead of
  // running it along a wall, and it is safe: the straight line from anywhere in a tile to that
  // centre stays inside the tile, the next one and (for a diagonal move) the two walkable tiles
  // beside it, and every one of those is strictly nearer the goal. So a point moving along the
  // samples never enters a wall and reaches the goal tile; a blend can point into a corner.
  Vec2 sample(Vec2 p) const;

  // Bytes held: 9 per tile (a double distance, a one-byte step) plus the Dijkstra's scratch.
  std::size_t memory_bytes() const;

 private:
  struct OpenEntry {
    double distance;
    std::uint32_t index;
  };
  bool in_bounds(TileCoord t) const {
    return t.x >= 0 && t.y >= 0 && t.x < width_ && t.y < height_;
  }
  std::size_t index(TileCoord t) const {
    return static_cast<std::size_t>(t.y) * static_cast<std::size_t>(width_) +
           static_cast<std::size_t>(t.x);
  }
  void run_dijkstra(const TileMap& map);
  void choose_steps(const TileMap& map);

  std::int32_t width_ = 0;
  std::int32_t height_ = 0;
  double tile_size_ = 1.0;
  TileCoord goal_;
  Neighbourhood neighbourhood_ = Neighbourhood::eight;
  std::uint64_t map_revision_ = 0;
  bool built_ = false;
  std::vector<double> distance_;
  std::vector<std::uint8_t> step_;
  std::vector<OpenEntry> open_;  // scratch: binary heap with lazy deletion
};

}  // namespace herd::sim
