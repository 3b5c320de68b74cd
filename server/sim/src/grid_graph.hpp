// herd::sim grid graph — the tile moves A* (astar.hpp) and flow fields (flow_field.hpp) share,
// so a flow field's distances are exactly the costs of A*'s paths.
//
// Costs are in tiles: a straight step costs 1, a diagonal one sqrt(2); multiply by the map's
// tile_size for world units.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "herd/sim/tile_map.hpp"

namespace herd::sim {

enum class Neighbourhood : std::uint8_t {
  four,   // left, right, up, down; heuristic: Manhattan distance
  eight,  // and the diagonals, never cutting a corner; heuristic: octile distance
};

inline constexpr double kDiagonalCost = 1.4142135623730951;  // sqrt(2), rounded to nearest

struct GridStep {
  std::int32_t dx;
  std::int32_t dy;
  double cost;  // tiles
};

// Fixed order (straight steps first, in the no-backtracking walker's order, then the diagonals):
// every tie between equally good moves is broken by it, so results never depend on the standard
// library.
inline constexpr GridStep kGridSteps[8] = {{-1, 0, 1.0},
                                           {1, 0, 1.0},
                                           {0, -1, 1.0},
                                           {0, 1, 1.0},
                                           {-1, -1, kDiagonalCost},
                                           {1, -1, kDiagonalCost},
                                           {-1, 1, kDiagonalCost},
                                           {1, 1, kDiagonalCost}};

inline int step_count(Neighbourhood n) { return n == Neighbourhood::four ? 4 : 8; }

// A move from `from` (walkable) by `step` is allowed when the tile it lands on is walkable and,
// for a diagonal step, both tiles beside it are walkable too: no cutting a wall's corner, which a
// disc would have to pass through. The rule is symmetric, so distances from a goal (flow field)
// equal distances to it (A*).
inline bool can_step(const TileMap& map, TileCoord from, const GridStep& step) {
  if (map.blocked(from.x + step.dx, from.y + step.dy)) return false;
  if (step.dx == 0 || step.dy == 0) return true;
  return !map.blocked(from.x + step.dx, from.y) && !map.blocked(from.x, from.y + step.dy);
}

// Admissible and consistent lower bounds of the path cost from a to b, in tiles.
inline double grid_heuristic(Neighbourhood n, TileCoord a, TileCoord b) {
  const double dx = std::abs(a.x - b.x);
  const double dy = std::abs(a.y - b.y);
  if (n == Neighbourhood::four) return dx + dy;  // Manhattan
  // Octile: diagonal steps for the shorter side, straight ones for the rest.
  return std::max(dx, dy) + (kDiagonalCost - 1.0) * std::min(dx, dy);
}

}  // namespace herd::sim
