#include "collision.hpp"

namespace herd::sim {

Vec2 collision_point(Vec2 p1, double r1, Vec2 p2, double r2) {
  const double sum = r1 + r2;
  if (sum <= 0) return (p1 + p2) * 0.5;
  return (p1 * r2 + p2 * r1) * (1.0 / sum);
}

Vec2 elastic_velocity_change(Vec2 p1, Vec2 v1, double m1, Vec2 p2, Vec2 v2, double m2) {
  const Vec2 dist = p2 - p1;
  const double dist_sq = length_squared(dist);
  if (dist_sq < 1e-24) return {};
  const double approach = -dot(dist, v2 - v1);  // the write-up's dotProduct: > 0 when closing
  if (approach <= 0) return {};
  const Vec2 collision = dist * (approach / dist_sq);  // relative velocity along the centres
  return collision * (-2.0 * m2 / (m1 + m2));
}

Vec2 bounce_off_static(Vec2 p, Vec2 v, Vec2 static_centre) {
  const Vec2 normal = normalized_or_zero(p - static_centre);
  const double into = dot(v, normal);
  if (into >= 0) return {};
  return normal * (-2.0 * into);
}

}  // namespace herd::sim
