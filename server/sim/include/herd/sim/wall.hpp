// herd::sim walls: static, thin segments, polylines and polygons (add_wall). Every avoidance mode
// steers round them, and they are a hard boundary: an agent's centre never crosses one, and its
// disc is pushed out to touch one at most (docs/simulation.md, "Walls").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vec2.hpp"

namespace herd::sim {

using WallId = std::uint32_t;

// A wall through `points` in order: a segment with two, an open polyline with more; `closed`
// joins the last point back to the first (a polygon, three points or more). No thickness.
struct Wall {
  WallId id = 0;
  std::vector<Vec2> points;
  bool closed = false;
  friend bool operator==(const Wall&, const Wall&) = default;
};

// What add_wall (and a loaded checkpoint) must keep to. Points lie inside the world, and no two
// consecutive points are equal (for a closed wall, the last and the first neither).
struct WallLimits {
  static constexpr std::size_t kMinPoints = 2;        // a closed wall: kMinClosedPoints
  static constexpr std::size_t kMinClosedPoints = 3;  // a polygon
  static constexpr std::size_t kMaxPoints = 256;      // per wall
  static constexpr std::size_t kMaxWalls = 1024;      // in a world
  // Every wall's points together: what a welcome or a snapshot that carries the walls can hold
  // (about 34 bytes of JSON a point at the widest, so half a megabyte).
  static constexpr std::size_t kMaxTotalPoints = 16384;
};

}  // namespace herd::sim
