#include "geometry.hpp"

#include <algorithm>

namespace herd::sim {

std::optional<Vec2> segment_intersection(Vec2 a0, Vec2 a1, Vec2 b0, Vec2 b1) {
  const Vec2 s1 = a1 - a0;
  const Vec2 s2 = b1 - b0;
  const double denom = -s2.x * s1.y + s1.x * s2.y;
  if (std::abs(denom) < 1e-12) return std::nullopt;
  const double s = (-s1.y * (a0.x - b0.x) + s1.x * (a0.y - b0.y)) / denom;
  const double t = (s2.x * (a0.y - b0.y) - s2.y * (a0.x - b0.x)) / denom;
  if (s >= 0 && s <= 1 && t >= 0 && t <= 1) return a0 + s1 * t;
  return std::nullopt;
}

Vec2 mirror_about(Vec2 axis, Vec2 m) {
  const double len_sq = length_squared(axis);
  if (len_sq < 1e-24) return m;
  return axis * (2.0 * dot(m, axis) / len_sq) - m;
}

double quarter_ellipse(double x) {
  const double u = std::clamp((2.0 * x - kPi) / kPi, -1.0, 1.0);
  return std::sqrt(1.0 - u * u);
}

}  // namespace herd::sim
