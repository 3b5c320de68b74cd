#include "formation.hpp"

#include <algorithm>
#include <cmath>

#include "geometry.hpp"
#include "spatial_grid.hpp"

namespace herd::sim {
namespace {

// `count` points along a segment centred on the origin, `spacing` apart, along x.
void row(std::vector<Vec2>& out, std::size_t count, double spacing, double y) {
  const double start = -0.5 * spacing * static_cast<double>(count - 1);
  for (std::size_t i = 0; i < count; ++i)
    out.push_back({start + spacing * static_cast<double>(i), y});
}

// Splits n into k parts as evenly as possible, larger parts first.
std::vector<std::size_t> split(std::size_t n, std::size_t k) {
  std::vector<std::size_t> parts(k, n / k);
  for (std::size_t i = 0; i < n % k; ++i) ++parts[i];
  return parts;
}

std::vector<Vec2> circle(const FormationDef& d, std::size_t n) {
  // Large enough that neighbours are `spacing` apart along the chord.
  const double needed = n > 1 ? d.spacing / (2 * std::sin(kPi / static_cast<double>(n))) : 0;
  const double r = std::max(d.radius, needed);
  std::vector<Vec2> out;
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(from_angle(2 * kPi * static_cast<double>(i) / static_cast<double>(n), r));
  return out;
}

std::vector<Vec2> lines(const FormationDef& d, std::size_t n, std::size_t k) {
  // k parallel lines across x, each along y... built along x then rotated for `vertical`.
  std::vector<Vec2> out;
  const auto parts = split(n, std::max<std::size_t>(1, std::min(k, n)));
  const double gap = 4 * d.spacing;  // between lines: room to pass, as in the demo's P
  const double first = -0.5 * gap * static_cast<double>(parts.size() - 1);
  for (std::size_t l = 0; l < parts.size(); ++l)
    row(out, parts[l], d.spacing, first + gap * static_cast<double>(l));
  return out;
}

std::vector<Vec2> blocks(const FormationDef& d, std::size_t n) {
  std::vector<Vec2> out;
  const auto parts = split(n, std::max<std::size_t>(1, std::min<std::size_t>(d.count, n)));
  double x = 0;
  std::vector<double> block_x;
  std::vector<std::size_t> block_cols;
  for (std::size_t size : parts) {
    const std::size_t cols =
        d.columns ? d.columns
                  : static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(size))));
    block_cols.push_back(cols);
    block_x.push_back(x);
    x += d.spacing * static_cast<double>(cols - 1) + 4 * d.spacing;  // a gap of four spacings
  }
  const double shift = -0.5 * (x - 4 * d.spacing);
  for (std::size_t b = 0; b < parts.size(); ++b) {
    const std::size_t cols = block_cols[b];
    const std::size_t rows = (parts[b] + cols - 1) / cols;
    for (std::size_t i = 0; i < parts[b]; ++i) {
      const double cx = block_x[b] + shift + d.spacing * static_cast<double>(i % cols);
      const double cy =
          d.spacing * (static_cast<double>(i / cols) - 0.5 * static_cast<double>(rows - 1));
      out.push_back({cx, cy});
    }
  }
  return out;
}

std::vector<Vec2> wedge(const FormationDef& d, std::size_t n) {
  // The leader at the tip (facing +x), then pairs behind it on both arms at 45 degrees.
  std::vector<Vec2> out{{0, 0}};
  const double step = d.spacing / std::sqrt(2.0);
  for (std::size_t i = 1; out.size() < n; ++i) {
    const double back = -step * static_cast<double>(i), side = step * static_cast<double>(i);
    out.push_back({back, -side});
    if (out.size() < n) out.push_back({back, side});
  }
  // Centre the wedge on its centroid so `centre` is the middle of the group.
  Vec2 mean;
  for (const Vec2& p : out) mean += p;
  mean *= 1.0 / static_cast<double>(out.size());
  for (Vec2& p : out) p -= mean;
  return out;
}

// The angle swept round the centre from p to t walking on the round's side: with the disc on
// the left (sense +1) the walker turns the negative way (see way_round's `side`). In [0, 2 pi).
double swept_round(const Round& r, Vec2 p, Vec2 t) {
  double swept = -r.sense * (angle_of(t - r.centre) - angle_of(p - r.centre));
  while (swept < 0) swept += 2 * kPi;
  while (swept >= 2 * kPi) swept -= 2 * kPi;
  return swept;
}

// A member pushed past its way's end (a little further round than its goal) would go all the
// way round again: past three quarters of a turn, the other side is the way.
Round oriented(Round r, Vec2 p, Vec2 t) {
  if (swept_round(r, p, t) > 1.5 * kPi) r.sense = -r.sense;
  return r;
}

// Whether the straight segment p -> t keeps out of the disc (touching it counts as out).
bool clears(const Round& r, Vec2 p, Vec2 t) {
  const Vec2 pt = t - p;
  const double len2 = length_squared(pt);
  const double s = len2 > 0 ? std::clamp(dot(r.centre - p, pt) / len2, 0.0, 1.0) : 0.0;
  return length(p + pt * s - r.centre) >= r.radius * (1 - 1e-9);
}

}  // namespace

std::vector<std::uint32_t> formation_parts(const FormationDef& d, std::size_t n) {
  std::vector<std::uint32_t> part;
  part.reserve(n);
  if (d.shape != Shape::block && d.shape != Shape::lines) {
    part.assign(n, 0);
    return part;
  }
  // The same split as the layouts above: slots come part by part.
  const auto sizes = split(n, std::max<std::size_t>(1, std::min<std::size_t>(d.count, n)));
  for (std::size_t p = 0; p < sizes.size(); ++p)
    part.insert(part.end(), sizes[p], static_cast<std::uint32_t>(p));
  return part;
}

double default_spacing(Shape shape, double radius) {
  switch (shape) {
    case Shape::circle:
    case Shape::line:
      return 3.0 * radius;  // rows: a radius between neighbours, to step in through
    case Shape::lines:      // a diameter's gap: agents cross lines through it
    case Shape::wedge:
      return 4.0 * radius;
    case Shape::block:
      return 6.0 * radius;  // inner places reached between standing agents
  }
  return 4.0 * radius;
}

std::vector<Vec2> formation_slots(const FormationDef& d, std::size_t n) {
  std::vector<Vec2> local;
  switch (d.shape) {
    case Shape::circle:
      local = circle(d, n);
      break;
    case Shape::line:
      row(local, n, d.spacing, 0);
      break;
    case Shape::lines:
      local = lines(d, n, d.count);
      break;
    case Shape::block:
      local = blocks(d, n);
      break;
    case Shape::wedge:
      local = wedge(d, n);
      break;
  }
  // Lines and blocks are laid out along x; `vertical` turns them a quarter (the demo's P), then
  // `facing` turns everything, and the layout moves to the centre.
  double turn = d.facing * kPi / 180.0;
  if (d.vertical && (d.shape == Shape::line || d.shape == Shape::lines)) turn += kPi / 2;
  for (Vec2& p : local) p = d.centre + rotate(p, turn);
  return local;
}

Vec2 centroid(const std::vector<Vec2>& points) {
  Vec2 c;
  for (const Vec2& p : points) c += p;
  return points.empty() ? c : c * (1.0 / static_cast<double>(points.size()));
}

Vec2 way_round(Round r, Vec2 p, Vec2 t) {
  r = oriented(r, p, t);
  const Vec2 cp = p - r.centre;
  const double d = length(cp);
  r.radius = std::min(r.radius, d);  // pushed inside: keep out of the disc it stands on the edge of
  if (r.radius <= 0 || d <= 0 || length(t - r.centre) <= r.radius || clears(r, p, t))
    return normalized_or_zero(t - p);
  const Vec2 u = cp * (1.0 / d);
  const Vec2 side = Vec2{u.y, -u.x} * r.sense;  // from the centre towards the side passed on
  if (d <= r.radius) return side;
  const double cos_a = r.radius / d, sin_a = std::sqrt(std::max(0.0, 1 - cos_a * cos_a));
  const Vec2 tangent_point = r.centre + (u * cos_a + side * sin_a) * r.radius;
  return normalized_or_zero(tangent_point - p);
}

double way_round_length(Round r, Vec2 p, Vec2 t) {
  const double dp = length(p - r.centre), dt = length(t - r.centre);
  if (r.radius <= 0 || dp <= r.radius || dt <= r.radius || clears(r, p, t)) return length(t - p);
  r = oriented(r, p, t);
  const double swept = swept_round(r, p, t);
  const double arc = std::max(0.0, swept - std::acos(r.radius / dp) - std::acos(r.radius / dt));
  return std::sqrt(dp * dp - r.radius * r.radius) + std::sqrt(dt * dt - r.radius * r.radius) +
         r.radius * arc;
}

double orbit_scale_for(const std::vector<Vec2>& points, double radius, double width,
                       double height) {
  constexpr double kLeast = 0.5;
  const double need = 3 * radius;      // centre to centre at the narrowest
  const double reach = need / kLeast;  // neighbours farther than this allow the least scale
  SpatialGrid grid;
  grid.rebuild(points, width, height,
               SpatialGrid::cell_size_for(points.size(), width, height, reach));
  std::vector<double> nearest(points.size(), reach);
  for (std::size_t k = 0; k < points.size(); ++k)
    grid.query_points(points[k], reach, [&](std::uint32_t item, Vec2 q, std::uint32_t) {
      if (item != k) nearest[k] = std::min(nearest[k], length(q - points[k]));
    });
  if (nearest.empty()) return 1;
  const auto mid = nearest.begin() + static_cast<std::ptrdiff_t>(nearest.size() / 2);
  std::nth_element(nearest.begin(), mid, nearest.end());
  return *mid > 0 ? std::clamp(need / *mid, kLeast, 1.0) : 1.0;
}

}  // namespace herd::sim
