// herd::sim A* — cheapest tile paths on a TileMap, and string pulling to smooth them.
//
// Beside the no-backtracking walker, a real pathfinder on the same map. Moves
// and costs are grid_graph.hpp's (4- or 8-neighbour, no corner cutting, diagonal sqrt(2)).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "grid_graph.hpp"
#include "herd/sim/tile_map.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

enum class PathStatus : std::uint8_t {
  found,
  start_outside,  // start tile off the map
  goal_outside,   // goal tile off the map
  start_blocked,  // start tile is a wall
  goal_blocked,   // goal tile is a wall
  unreachable,    // both walkable, but no path joins them
};

// "found", "start_outside", ...: stable names for messages and the wire.
const char* to_string(PathStatus status);

struct PathResult {
  PathStatus status = PathStatus::unreachable;
  double cost = 0.0;           // tiles (straight step 1, diagonal sqrt(2)); 0 unless found
  std::uint32_t expanded = 0;  // tiles expanded: the work done, for benchmarks
  bool found() const { return status == PathStatus::found; }
};

// A* with its scratch buffers, reused from one query to the next: after a first query on a map
// of a given size, a query allocates nothing (unless its open list outgrows every earlier one's).
// One PathFinder per thread; it holds no reference to a map between queries.
//
// Memory: 16 bytes per tile (g, parent, stamp) plus the open list. Time: O(E log E) for the E
// tiles expanded, at worst the goal's whole connected area (an unreachable goal costs a full
// search of the start's area: check a FlowField or cache the answer if that matters).
class PathFinder {
 public:
  // A cheapest path from start to goal. `path` receives the tiles from start to goal inclusive
  // ({start} when start == goal), or nothing when none is found. Ties between equally cheap
  // paths are broken deterministically: the open list is ordered by (f, larger g, tile index)
  // and neighbours are visited in kGridSteps order.
  PathResult find(const TileMap& map, TileCoord start, TileCoord goal, Neighbourhood neighbourhood,
                  std::vector<TileCoord>& path);

  // The same search in slices (DetourCrowd's sliced path queries): begin() sets it up, each
  // resume() expands at most max_expansions more tiles and returns true once it has finished,
  // with the path in `path` and the answer in result(). Between slices the map must not change
  // (a caller whose map changed calls begin() again). The slices add up to exactly find()'s
  // search: the same expansions in the same order, the same path, whatever the budget.
  void begin(const TileMap& map, TileCoord start, TileCoord goal, Neighbourhood neighbourhood);
  bool resume(const TileMap& map, std::uint32_t max_expansions, std::vector<TileCoord>& path);
  bool running() const { return running_; }
  // The search so far: status (final once resume() returned true) and tiles expanded.
  const PathResult& result() const { return result_; }

 private:
  struct OpenEntry {
    double f;
    double g;
    std::uint32_t index;
  };
  void prepare(std::size_t tile_count);
  void trace_path(const TileMap& map, std::uint32_t goal_index, std::vector<TileCoord>& path) const;

  std::vector<double> g_;              // cost from start, valid where stamp_ == query_
  std::vector<std::uint32_t> parent_;  // tile index we came from, valid where stamp_ == query_
  std::vector<std::uint32_t> stamp_;   // which query last wrote a tile: no clearing per query
  std::uint32_t query_ = 0;
  std::vector<OpenEntry> open_;  // binary heap (std::push_heap) with lazy deletion
  // The search under way (begin/resume).
  TileCoord goal_;
  std::uint32_t goal_index_ = 0;
  Neighbourhood neighbourhood_ = Neighbourhood::eight;
  PathResult result_;
  bool running_ = false;
};

// The tile centres of a path, in world units (the no-backtracking walker walks centre to centre
// too).
void path_points(const TileMap& map, std::span<const TileCoord> tiles, std::vector<Vec2>& out);

// String pulling: from each kept point, jump to the farthest following point reachable in a
// straight line by a disc of `radius` (clear_segment), checked point by point until the first
// failure. Keeps the first and last points.
//
// Guarantee: every output segment either passes clear_segment(map, a, b, radius) (the disc, swept
// along it, touches no blocked tile) or is one of the input segments, kept because none longer
// was clear. A* paths through centres are themselves clear for radius < tile_size/2; for larger
// discs in one-tile corridors only the input's own guarantee holds. Callers may replace the
// first and last points (the agent's position, the exact target) before or after; the guarantee
// then covers the segments between the points given. O(points * segment tiles).
void string_pull(const TileMap& map, std::span<const Vec2> points, double radius,
                 std::vector<Vec2>& out);

}  // namespace herd::sim
