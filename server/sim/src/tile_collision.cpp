#include "tile_collision.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

namespace herd::sim {
namespace {

// Segment parameters this close count as the same grid crossing: a segment passing this near a
// corner is treated as passing through it (conservative: it must clear both tiles beside it).
constexpr double kCornerEpsilon = 1e-9;
constexpr double kBeyond = 2.0;  // a segment parameter past the end (1): "no further crossing"

bool finite(Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

bool on_map(const TileMap& map, Vec2 p) {
  const Vec2 size = map.world_size();
  return p.x >= 0.0 && p.y >= 0.0 && p.x <= size.x && p.y <= size.y;
}

// floor(v / size) clamped to [-1, count]: out-of-bounds tiles are all blocked, so the nearest one
// stands for the rest, and no value overflows the conversion.
std::int32_t clamped_tile(double v, double size, std::int32_t count) {
  const double t = std::floor(v / size);
  if (!(t >= -1.0)) return -1;
  if (t > static_cast<double>(count)) return count;
  return static_cast<std::int32_t>(t);
}

// The first tile whose far edge is at or past v: ceil(v / size) - 1, clamped like clamped_tile.
// Used where touching counts, so a tile whose edge lies exactly at v is included.
std::int32_t clamped_tile_touching(double v, double size, std::int32_t count) {
  const double t = std::ceil(v / size) - 1.0;
  if (!(t >= -1.0)) return -1;
  if (t > static_cast<double>(count)) return count;
  return static_cast<std::int32_t>(t);
}

double point_box_distance_sq(Vec2 p, Vec2 lo, Vec2 hi) {
  const double dx = std::max({lo.x - p.x, 0.0, p.x - hi.x});
  const double dy = std::max({lo.y - p.y, 0.0, p.y - hi.y});
  return dx * dx + dy * dy;
}

double point_segment_distance_sq(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 d = b - a;
  const double len_sq = length_squared(d);
  const double t = len_sq > 0.0 ? std::clamp(dot(p - a, d) / len_sq, 0.0, 1.0) : 0.0;
  return length_squared(a + d * t - p);
}

// Liang-Barsky clipping of a-b against the closed box: true when they share a point.
bool segment_meets_box(Vec2 a, Vec2 b, Vec2 lo, Vec2 hi) {
  double t0 = 0.0, t1 = 1.0;
  const double from[2] = {a.x, a.y}, delta[2] = {b.x - a.x, b.y - a.y};
  const double low[2] = {lo.x, lo.y}, high[2] = {hi.x, hi.y};
  for (int axis = 0; axis < 2; ++axis) {
    if (delta[axis] == 0.0) {
      if (from[axis] < low[axis] || from[axis] > high[axis]) return false;
      continue;
    }
    double u0 = (low[axis] - from[axis]) / delta[axis];
    double u1 = (high[axis] - from[axis]) / delta[axis];
    if (u0 > u1) std::swap(u0, u1);
    t0 = std::max(t0, u0);
    t1 = std::min(t1, u1);
    if (t0 > t1) return false;
  }
  return true;
}

// Two disjoint convex shapes are nearest at a vertex of one and the boundary of the other, so
// for a segment and a box it is an endpoint against the box or a corner against the segment.
double segment_box_distance_sq(Vec2 a, Vec2 b, Vec2 lo, Vec2 hi) {
  if (segment_meets_box(a, b, lo, hi)) return 0.0;
  double best = std::min(point_box_distance_sq(a, lo, hi), point_box_distance_sq(b, lo, hi));
  for (const Vec2 corner : {lo, Vec2{hi.x, lo.y}, Vec2{lo.x, hi.y}, hi})
    best = std::min(best, point_segment_distance_sq(corner, a, b));
  return best;
}

struct Contact {
  Vec2 normal;         // unit, the direction to push the circle
  double depth = 0.0;  // units; 0 = no contact
};

// Walled in on all four sides: head for the nearest point of the nearest walkable tile, inset by
// r (at most half a tile) so the disc fits there; later iterations settle what is left. Searches
// square rings around t until no farther ring can be nearer. Rare, and O(k^2) for a ring k away.
Contact escape_contact(const TileMap& map, TileCoord t, Vec2 p, double r) {
  const double s = map.tile_size();
  const double inset = std::min(r, 0.5 * s);
  const std::int32_t max_ring = std::max(map.width(), map.height()) + 1;
  double best = std::numeric_limits<double>::infinity();
  Vec2 best_point = p;
  for (std::int32_t k = 1; k <= max_ring && (k - 1) * s < best; ++k) {
    for (std::int32_t y = t.y - k; y <= t.y + k; ++y) {
      const bool edge_row = y == t.y - k || y == t.y + k;
      for (std::int32_t x = t.x - k; x <= t.x + k; x += edge_row ? 1 : 2 * k) {
        if (map.blocked(x, y)) continue;
        const Vec2 lo = map.tile_min({x, y}) + Vec2{inset, inset};
        const Vec2 hi = map.tile_min({x, y}) + Vec2{s - inset, s - inset};
        const Vec2 q{std::clamp(p.x, lo.x, hi.x), std::clamp(p.y, lo.y, hi.y)};
        const double d = length(q - p);
        if (d < best) {  // strict: ties go to the first tile in ring order
          best = d;
          best_point = q;
        }
      }
    }
  }
  if (!(best < std::numeric_limits<double>::infinity())) return {};  // no walkable tile at all
  return {normalized_or_zero(best_point - p), best};
}

// The circle's centre is inside the blocked tile's closed square (on its boundary included):
// leave through the nearest face with a walkable tile beyond it, or escape when there is none.
Contact inside_contact(const TileMap& map, TileCoord t, Vec2 p, double r, Vec2 lo, Vec2 hi) {
  struct Face {
    int dx, dy;
    double distance;
  };
  const Face faces[4] = {
      {-1, 0, p.x - lo.x}, {1, 0, hi.x - p.x}, {0, -1, p.y - lo.y}, {0, 1, hi.y - p.y}};
  const Face* exposed = nullptr;
  for (const Face& f : faces) {  // strict '<': ties go to the first face in the order above
    if (map.blocked(t.x + f.dx, t.y + f.dy)) continue;
    if (!exposed || f.distance < exposed->distance) exposed = &f;
  }
  if (!exposed) return escape_contact(map, t, p, r);
  return {Vec2{static_cast<double>(exposed->dx), static_cast<double>(exposed->dy)},
          exposed->distance + r};
}

// Contact of the circle (p, r) with blocked tile t.
Contact tile_contact(const TileMap& map, TileCoord t, Vec2 p, double r) {
  const double s = map.tile_size();
  const Vec2 lo = map.tile_min(t);
  const Vec2 hi = lo + Vec2{s, s};
  // Which side of the square the centre is on, per axis: -1 before it, +1 after it, 0 within.
  const int rx = p.x < lo.x ? -1 : (p.x > hi.x ? 1 : 0);
  const int ry = p.y < lo.y ? -1 : (p.y > hi.y ? 1 : 0);
  if (rx == 0 && ry == 0) return inside_contact(map, t, p, r, lo, hi);
  // A face shared with another blocked tile is internal: that tile lies between this one and the
  // centre, is nearer, and pushes at least as deep, so this contact (a "ghost" from the corner at
  // a seam of a wall made of tiles, pushing sideways) could never be the deepest. Skipping it
  // keeps it out of the picture entirely; at a corner whose sides are both internal the two
  // walls push in turn.
  if (rx != 0 && map.blocked(t.x + rx, t.y)) return {};
  if (ry != 0 && map.blocked(t.x, t.y + ry)) return {};
  const Vec2 closest{std::clamp(p.x, lo.x, hi.x), std::clamp(p.y, lo.y, hi.y)};
  const Vec2 away = p - closest;
  const double dist_sq = length_squared(away);
  if (dist_sq >= r * r) return {};
  const double dist = std::sqrt(dist_sq);
  // dist_sq > 0 implies dist > 1e-162, so 1/dist is finite; an underflowed offset falls back to
  // the side the centre is on.
  const Vec2 side{static_cast<double>(rx), static_cast<double>(ry)};
  const Vec2 normal = dist_sq > 0.0 ? away * (1.0 / dist) : normalized_or_zero(side);
  return {normal, r - dist};
}

// The deepest contact over the blocked tiles under the circle's bounding box; ties go to the
// first tile in row-major order, so the result never depends on anything but the inputs.
Contact deepest_contact(const TileMap& map, Vec2 p, double r) {
  const double s = map.tile_size();
  const std::int32_t x0 = clamped_tile(p.x - r, s, map.width()),
                     x1 = clamped_tile(p.x + r, s, map.width());
  const std::int32_t y0 = clamped_tile(p.y - r, s, map.height()),
                     y1 = clamped_tile(p.y + r, s, map.height());
  Contact best;
  for (std::int32_t y = y0; y <= y1; ++y) {
    for (std::int32_t x = x0; x <= x1; ++x) {
      if (!map.blocked(x, y)) continue;
      const Contact c = tile_contact(map, {x, y}, p, r);
      if (c.depth > best.depth) best = c;
    }
  }
  return best;
}

// Radii beyond the map's half-perimeter cannot fit anywhere; the cap keeps every sum finite.
double capped_radius(const TileMap& map, double r) {
  const Vec2 size = map.world_size();
  return std::min(r, size.x + size.y);
}

Vec2 clamp_to_map(const TileMap& map, Vec2 p) {
  const Vec2 size = map.world_size();
  return {std::clamp(p.x, 0.0, size.x), std::clamp(p.y, 0.0, size.y)};
}

}  // namespace

bool line_of_sight(const TileMap& map, Vec2 a, Vec2 b) {
  if (!finite(a) || !finite(b)) return false;
  TileCoord t = map.tile_at(a);
  const TileCoord end = map.tile_at(b);
  if (map.blocked(t)) return false;  // also an endpoint off the map
  const double s = map.tile_size();
  const Vec2 d = b - a;
  const int sx = end.x > t.x ? 1 : (end.x < t.x ? -1 : 0);
  const int sy = end.y > t.y ? 1 : (end.y < t.y ? -1 : 0);
  // Where the segment crosses the next grid line on one axis, as a parameter along a-b. It is
  // recomputed from the tile each step rather than accumulated, so rounding cannot drift.
  auto crossing = [s](std::int32_t tile, int step, double from, double delta) {
    return ((step > 0 ? tile + 1 : tile) * s - from) / delta;
  };
  // Each step enters the next tile; the walk is bounded by the tiles between the endpoints.
  int remaining = std::abs(end.x - t.x) + std::abs(end.y - t.y);
  while (remaining > 0) {
    const double tx = t.x != end.x ? crossing(t.x, sx, a.x, d.x) : kBeyond;
    const double ty = t.y != end.y ? crossing(t.y, sy, a.y, d.y) : kBeyond;
    if (std::abs(tx - ty) <= kCornerEpsilon) {
      // Through a corner: as A* forbids corner cutting, both tiles beside it must be walkable.
      if (map.blocked(t.x + sx, t.y) || map.blocked(t.x, t.y + sy)) return false;
      t.x += sx;
      t.y += sy;
      remaining -= 2;
    } else if (tx < ty) {
      t.x += sx;
      --remaining;
    } else {
      t.y += sy;
      --remaining;
    }
    if (map.blocked(t)) return false;
  }
  return true;
}

bool clear_segment(const TileMap& map, Vec2 a, Vec2 b, double radius) {
  if (!finite(a) || !finite(b) || std::isnan(radius)) return false;
  if (radius <= 0.0) return line_of_sight(map, a, b);
  // The segment itself must lie on the map; off it, it is in out-of-bounds (blocked) tiles.
  if (!on_map(map, a) || !on_map(map, b)) return false;
  radius = capped_radius(map, radius);
  const double s = map.tile_size();
  const double r_sq = radius * radius;
  const Vec2 d = b - a;
  const std::int32_t y0 = clamped_tile_touching(std::min(a.y, b.y) - radius, s, map.height());
  const std::int32_t y1 = clamped_tile(std::max(a.y, b.y) + radius, s, map.height());
  for (std::int32_t y = y0; y <= y1; ++y) {
    // The part of the segment within `radius` of this row, as parameters [t0, t1]; the tiles
    // of the row within `radius` of the segment lie within `radius` of that part's x range.
    const double band_lo = y * s - radius, band_hi = (y + 1) * s + radius;
    double t0 = 0.0, t1 = 1.0;
    if (d.y == 0.0) {
      if (a.y < band_lo || a.y > band_hi) continue;
    } else {
      double u0 = (band_lo - a.y) / d.y, u1 = (band_hi - a.y) / d.y;
      if (u0 > u1) std::swap(u0, u1);
      t0 = std::max(t0, u0);
      t1 = std::min(t1, u1);
      if (t0 > t1) continue;
    }
    const double xa = a.x + d.x * t0, xb = a.x + d.x * t1;
    const std::int32_t x0 = clamped_tile_touching(std::min(xa, xb) - radius, s, map.width());
    const std::int32_t x1 = clamped_tile(std::max(xa, xb) + radius, s, map.width());
    for (std::int32_t x = x0; x <= x1; ++x) {
      if (!map.blocked(x, y)) continue;
      const Vec2 lo = map.tile_min({x, y});
      if (segment_box_distance_sq(a, b, lo, lo + Vec2{s, s}) <= r_sq) return false;
    }
  }
  return true;
}

Vec2 push_out(const TileMap& map, Vec2 centre, double radius) {
  if (!finite(centre) || !std::isfinite(radius) || radius < 0.0) return {};
  radius = capped_radius(map, radius);
  Vec2 p = clamp_to_map(map, centre);
  for (int i = 0; i < kMaxPushIterations; ++i) {
    const Contact c = deepest_contact(map, p, radius);
    if (!(c.depth > 0.0)) break;
    p += c.normal * c.depth;
  }
  return p - centre;
}

double penetration(const TileMap& map, Vec2 centre, double radius) {
  if (!finite(centre) || !std::isfinite(radius) || radius < 0.0) return 0.0;
  radius = capped_radius(map, radius);
  // Off the map the centre is inside the blocked outside: count the way back onto the map too.
  const Vec2 p = clamp_to_map(map, centre);
  return deepest_contact(map, p, radius).depth + length(centre - p);
}

}  // namespace herd::sim
