// herd::sim geometry helpers the avoidance formulas are written in: angles, segment intersection,
// mirroring. Each names the idea and step it comes from; none yields NaN for degenerate input.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>

#include "herd/sim/vec2.hpp"

namespace herd::sim {

inline constexpr double kPi = std::numbers::pi;

// An angle brought into [-pi, pi] (the anti-gravity push's "invert if more than 180 deg").
inline double wrap_angle(double a) {
  if (a > kPi) a -= 2 * kPi;
  if (a < -kPi) a += 2 * kPi;
  return a;
}

inline double angle_of(Vec2 v) { return std::atan2(v.y, v.x); }  // atan2(0,0) is 0, never NaN
inline Vec2 from_angle(double a, double magnitude = 1.0) {
  return {std::cos(a) * magnitude, std::sin(a) * magnitude};
}

// v rotated by angle a (counter-clockwise in maths axes; clockwise on a y-down screen).
inline Vec2 rotate(Vec2 v, double a) {
  const double c = std::cos(a), s = std::sin(a);
  return {v.x * c - v.y * s, v.y * c + v.x * s};
}

constexpr double cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }

// Whether `to` (from an agent to another) lies within sixty degrees of `way` (from the agent to
// its place): the other stands in its way there.
inline bool in_the_way(Vec2 to, Vec2 way) { return 2 * dot(to, way) >= length(to) * length(way); }

// The crossing fix's pathIntersect: where segment a0-a1 meets segment b0-b1, if they do.
// Parallel or degenerate segments (zero denominator) do not intersect: the published code divided
// by zero.
std::optional<Vec2> segment_intersection(Vec2 a0, Vec2 a1, Vec2 b0, Vec2 b1);

// The crossing fix's mirrorVector: m reflected about the line along axis. The published code
// solved two line equations and divided by axis.vy, so a horizontal path gave infinities; the
// reflection 2 (m.u) u - m with u = axis/|axis| is the same result without the singularity. A zero
// axis leaves m unchanged.
Vec2 mirror_about(Vec2 axis, Vec2 m);

// The side and split fixes' quarter ellipse: sqrt(1 - ((2x - pi)/pi)^2) for x in [0, pi]:
// 0 at 0 and pi, 1 at pi/2. Arguments outside are clamped (the published code could take sqrt of
// < 0).
double quarter_ellipse(double x);

// Visits, in order from `from`'s, the cells of a unit grid that the segment from-to passes through
// (points in cell units: cell (x, y) is [x, x+1) x [y, y+1)), as Amanatides and Woo walk a grid,
// until visit(x, y) returns true; whether one did. A line through a corner steps along x first.
template <class Visit>
bool walk_cells(Vec2 from, Vec2 to, Visit&& visit) {
  auto cx = static_cast<std::int64_t>(std::floor(from.x));
  auto cy = static_cast<std::int64_t>(std::floor(from.y));
  const auto gx = static_cast<std::int64_t>(std::floor(to.x));
  const auto gy = static_cast<std::int64_t>(std::floor(to.y));
  const double dx = to.x - from.x, dy = to.y - from.y;
  const int sx = dx > 0 ? 1 : -1, sy = dy > 0 ? 1 : -1;
  constexpr double kNever = std::numeric_limits<double>::infinity();
  double next_x = dx == 0 ? kNever : (sx > 0 ? cx + 1 - from.x : from.x - cx) / std::abs(dx);
  double next_y = dy == 0 ? kNever : (sy > 0 ? cy + 1 - from.y : from.y - cy) / std::abs(dy);
  const double step_x = dx == 0 ? kNever : 1 / std::abs(dx);
  const double step_y = dy == 0 ? kNever : 1 / std::abs(dy);
  const std::int64_t moves = std::abs(gx - cx) + std::abs(gy - cy);
  for (std::int64_t k = 0;; ++k) {
    if (visit(cx, cy)) return true;
    if (k == moves) return false;
    if (next_x < next_y) {
      cx += sx;
      next_x += step_x;
    } else {
      cy += sy;
      next_y += step_y;
    }
  }
}

}  // namespace herd::sim
