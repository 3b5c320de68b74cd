#include "reciprocal.hpp"

#include <algorithm>
#include <cmath>

#include "geometry.hpp"

namespace herd::sim {
namespace {

constexpr double kEpsilon = 1e-9;

// The forbidden half-plane neighbour n makes for an agent at p moving at v (the paper's
// construction: u is the smallest change of the relative velocity that leaves the velocity
// obstacle, truncated at the horizon; the agent takes its share of it).
VelocityLine line_for(Vec2 p, Vec2 v, double r, const ReciprocalNeighbour& n, double horizon,
                      double dt) {
  const Vec2 rel_pos = n.position - p;
  const Vec2 rel_vel = v - n.velocity;
  const double dist2 = length_squared(rel_pos);
  const double rsum = r + n.radius;
  const double rsum2 = rsum * rsum;
  Vec2 direction, u;
  if (dist2 > rsum2) {
    const double inv_h = 1.0 / horizon;
    const Vec2 w = rel_vel - rel_pos * inv_h;  // from the truncation circle's centre
    const double w2 = length_squared(w);
    const double along = dot(w, rel_pos);
    if (along < 0 && along * along > rsum2 * w2) {
      // Nearest the truncation circle (a collision later than the horizon would be).
      const double w_len = std::sqrt(w2);
      const Vec2 unit_w = w * (1.0 / w_len);
      direction = {unit_w.y, -unit_w.x};
      u = unit_w * (rsum * inv_h - w_len);
    } else {
      // Nearest a leg of the cone: left or right of the line of centres.
      const double leg = std::sqrt(dist2 - rsum2);
      if (cross(rel_pos, w) > 0) {
        direction = Vec2{rel_pos.x * leg - rel_pos.y * rsum, rel_pos.x * rsum + rel_pos.y * leg} *
                    (1.0 / dist2);
      } else {
        direction = Vec2{rel_pos.x * leg + rel_pos.y * rsum, -rel_pos.x * rsum + rel_pos.y * leg} *
                    (-1.0 / dist2);
      }
      u = direction * dot(rel_vel, direction) - rel_vel;
    }
  } else {
    // Touching: apart within one tick.
    const double inv_dt = 1.0 / dt;
    const Vec2 w = rel_vel - rel_pos * inv_dt;
    const double w_len = length(w);
    const Vec2 unit_w = w_len > kEpsilon ? w * (1.0 / w_len)
                                         : Vec2{-rel_pos.y, rel_pos.x} *
                                               (1.0 / std::sqrt(std::max(dist2, kEpsilon)));
    direction = {unit_w.y, -unit_w.x};
    u = unit_w * (rsum * inv_dt - w_len);
  }
  return {v + u * n.share, direction};
}

// On line `at`, the allowed point nearest `preferred` (or farthest along `preferred` when
// by_direction) within the speed disc and the lines before it; false when there is none.
bool solve_on_line(std::span<const VelocityLine> lines, std::size_t at, double speed,
                   Vec2 preferred, bool by_direction, Vec2& result) {
  const VelocityLine& l = lines[at];
  const double along = dot(l.point, l.direction);
  const double disc = along * along + speed * speed - length_squared(l.point);
  if (disc < 0) return false;  // the line misses the speed disc
  const double root = std::sqrt(disc);
  double t_left = -along - root, t_right = -along + root;
  for (std::size_t k = 0; k < at; ++k) {
    const double denominator = cross(l.direction, lines[k].direction);
    const double numerator = cross(lines[k].direction, l.point - lines[k].point);
    if (std::abs(denominator) <= kEpsilon) {  // parallel
      if (numerator < 0) return false;
      continue;
    }
    const double t = numerator / denominator;
    if (denominator >= 0)
      t_right = std::min(t_right, t);
    else
      t_left = std::max(t_left, t);
    if (t_left > t_right) return false;
  }
  double t;
  if (by_direction)
    t = dot(preferred, l.direction) > 0 ? t_right : t_left;
  else
    t = std::clamp(dot(l.direction, preferred - l.point), t_left, t_right);
  result = l.point + l.direction * t;
  return true;
}

// The allowed velocity nearest `preferred` (incremental 2D linear programming). Returns the
// number of lines when it found one, else the line it failed at (`result` then satisfies those
// before it).
std::size_t solve(std::span<const VelocityLine> lines, double speed, Vec2 preferred,
                  bool by_direction, Vec2& result) {
  if (by_direction)
    result = preferred * speed;  // preferred is a unit direction
  else
    result = clamp_length(preferred, speed);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (cross(lines[k].direction, lines[k].point - result) <= 0) continue;  // already allowed
    const Vec2 before = result;
    if (!solve_on_line(lines, k, speed, preferred, by_direction, result)) {
      result = before;
      return k;
    }
  }
  return lines.size();
}

// No velocity is allowed: the one that minimises the largest violation, from line `from` on
// (the paper's 3D program, solved as a sequence of 2D ones).
void least_violation(std::span<const VelocityLine> lines, std::size_t from, double speed,
                     Vec2& result, std::vector<VelocityLine>& projected) {
  double worst = 0;
  for (std::size_t k = from; k < lines.size(); ++k) {
    if (cross(lines[k].direction, lines[k].point - result) <= worst) continue;
    projected.clear();
    for (std::size_t j = 0; j < k; ++j) {
      VelocityLine line;
      const double d = cross(lines[k].direction, lines[j].direction);
      if (std::abs(d) <= kEpsilon) {
        if (dot(lines[k].direction, lines[j].direction) > 0) continue;  // same way: j adds nothing
        line.point = (lines[k].point + lines[j].point) * 0.5;
      } else {
        line.point =
            lines[k].point +
            lines[k].direction * (cross(lines[j].direction, lines[k].point - lines[j].point) / d);
      }
      line.direction = normalized_or_zero(lines[j].direction - lines[k].direction);
      projected.push_back(line);
    }
    const Vec2 before = result;
    if (solve(projected, speed, Vec2{-lines[k].direction.y, lines[k].direction.x}, true, result) <
        projected.size())
      result = before;  // rounding only: keep the last good answer
    worst = cross(lines[k].direction, lines[k].point - result);
  }
}

}  // namespace

Vec2 reciprocal_velocity(Vec2 position, Vec2 velocity, double radius, Vec2 preferred,
                         double max_speed, std::span<const ReciprocalNeighbour> neighbours,
                         double horizon, double dt, std::vector<VelocityLine>& lines) {
  lines.clear();
  for (const ReciprocalNeighbour& n : neighbours)
    lines.push_back(line_for(position, velocity, radius, n, horizon, dt));
  Vec2 result;
  const std::size_t failed = solve(lines, max_speed, preferred, false, result);
  if (failed < lines.size()) {
    thread_local std::vector<VelocityLine> projected;  // rare: a crowd pressing from every side
    least_violation(lines, failed, max_speed, result, projected);
  }
  return result;
}

}  // namespace herd::sim
