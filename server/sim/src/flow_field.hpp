// herd::sim::FlowField — one Dijkstra from a goal tile, shared by every agent going there.
//
// The anti-gravity write-up's "vector field" steers each agent by a direction computed where it
// stands; here the field is computed for walls, once per goal: the cheapest cost to the goal from
// every tile (the same moves and costs as A*, grid_graph.hpp) and, per tile, the step towards the
// cheapest neighbour. Hundreds of agents then read their direction in O(1) instead of running
// hundreds of A* searches.
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

  // The same build in slices, for a caller with a budget per tick: begin() sets it up (nothing is
  // reachable yet) and resume() does at most `budget` units of work against the same, unchanged
  // map, returning true once the field is complete. A unit is one entry taken from the Dijkstra's
  // open list, then one per tile of the map (each given its step): about the tiles that reach
  // the goal plus the map's tiles in all. The same map, goal and total work always stop at the
  // same point (checkpoints replay a build).
  PathStatus begin(const TileMap& map, TileCoord goal, Neighbourhood neighbourhood);
  bool resume(const TileMap& map, std::uint64_t budget);
  bool complete() const { return phase_ == Phase::complete; }
  std::uint64_t work() const { return work_; }  // units done since begin()

  bool built() const { return built_; }  // complete, and the goal was on a walkable tile
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
  enum class Phase : std::uint8_t { dijkstra, steps, complete };
  std::uint64_t run_dijkstra(const TileMap& map, std::uint64_t budget);
  std::uint64_t choose_steps(const TileMap& map, std::uint64_t budget);

  std::int32_t width_ = 0;
  std::int32_t height_ = 0;
  double tile_size_ = 1.0;
  TileCoord goal_;
  Neighbourhood neighbourhood_ = Neighbourhood::eight;
  std::uint64_t map_revision_ = 0;
  bool built_ = false;
  Phase phase_ = Phase::complete;
  std::uint64_t work_ = 0;
  std::size_t next_step_tile_ = 0;  // the steps phase's cursor
  std::vector<double> distance_;
  std::vector<std::uint8_t> step_;
  std::vector<OpenEntry> open_;  // scratch: binary heap with lazy deletion
};

}  // namespace herd::sim
