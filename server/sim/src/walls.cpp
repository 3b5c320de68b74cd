#include "walls.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "geometry.hpp"

namespace herd::sim {
namespace {

// > 0: p is on the left of a -> b as the y-up convention names it (cross(b - a, p - a)); the
// sign is all that is read, computed the same way wherever it is, so a centre's side of a wall
// reads the same at the end of one tick and the start of the next.
double orient(Vec2 a, Vec2 b, Vec2 p) { return cross(b - a, p - a); }

// The unit normal of a -> b on the side where orient > 0.
Vec2 left_normal(Vec2 a, Vec2 b) { return normalized_or_zero(Vec2{-(b.y - a.y), b.x - a.x}); }

// A move cut short at a wall stops this fraction of the way short of where it meets it.
constexpr double kBackOff = 1e-6;
// Cuts of a move before it is given up (the centre stays where the tick began): a move is cut
// once per wall it would cross first, so more than a few means rounding is fighting it.
constexpr int kMaxCuts = 4;
// Passes of pushes out of overlapped segments (each the deepest, or two at once): a disc against
// one wall takes one, in a corner one or two.
constexpr int kPushPasses = 6;
// A disc nearer a segment than its radius by less than this share of it touches it.
constexpr double kTouch = 1e-9;
// Grid cells per side of the world, at most (cells are square).
constexpr double kCellsPerSide = 128;

// Takes away the part of v into a wall whose normal (pointing to the agent's side) is n.
void stop_into(Vec2& v, Vec2 n) {
  const double into = dot(v, n);
  if (into < 0) v -= n * into;
}

bool in_box(Vec2 p, Vec2 lo, Vec2 hi) {
  return p.x >= lo.x && p.y >= lo.y && p.x <= hi.x && p.y <= hi.y;
}

}  // namespace

bool crosses_segment(Vec2 p0, Vec2 p1, Vec2 a, Vec2 b) {
  const double s0 = orient(a, b, p0);
  if (s0 == 0) return false;
  const double s1 = orient(a, b, p1);
  if (s0 > 0 ? s1 > 0 : s1 < 0) return false;
  const double t0 = orient(p0, p1, a), t1 = orient(p0, p1, b);
  return !((t0 > 0 && t1 > 0) || (t0 < 0 && t1 < 0));
}

Vec2 closest_on_segment(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 d = b - a;
  const double len2 = length_squared(d);
  if (!(len2 > 0)) return a;
  const double t = std::clamp(dot(p - a, d) / len2, 0.0, 1.0);
  if (t == 0) return a;
  if (t == 1) return b;  // exactly the vertex, which the next segment reports as its start
  return a + d * t;
}

std::string WallService::problem(std::span<const Vec2> points, bool closed, double width,
                                 double height, std::size_t walls, std::size_t total_points,
                                 bool& is_limit) {
  is_limit = false;
  const std::size_t n = points.size();
  const std::size_t least = closed ? WallLimits::kMinClosedPoints : WallLimits::kMinPoints;
  if (n < least)
    return closed ? "a closed wall needs at least 3 points" : "a wall needs at least 2 points";
  is_limit = true;
  if (n > WallLimits::kMaxPoints)
    return "a wall has at most " + std::to_string(WallLimits::kMaxPoints) + " points";
  if (walls >= WallLimits::kMaxWalls)
    return "the world holds at most " + std::to_string(WallLimits::kMaxWalls) + " walls";
  if (total_points + n > WallLimits::kMaxTotalPoints)
    return "the world's walls hold at most " + std::to_string(WallLimits::kMaxTotalPoints) +
           " points in all";
  is_limit = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 p = points[i];
    if (!(std::isfinite(p.x) && std::isfinite(p.y) && p.x >= 0 && p.y >= 0 && p.x <= width &&
          p.y <= height))
      return "wall point " + std::to_string(i) + " is outside the world";
    if (i > 0 && p == points[i - 1])
      return "wall points " + std::to_string(i - 1) + " and " + std::to_string(i) +
             " are the same point";
  }
  if (closed && points.front() == points.back())
    return "a closed wall's last point is its first: leave it out, closed joins them";
  return {};
}

WallId WallService::add(std::vector<Vec2> points, bool closed, double width, double height) {
  total_points_ += points.size();
  walls_.push_back({next_id_++, std::move(points), closed});
  ++version_;
  rebuild(width, height);
  return walls_.back().id;
}

bool WallService::remove(WallId id, double width, double height) {
  const auto it =
      std::find_if(walls_.begin(), walls_.end(), [id](const Wall& w) { return w.id == id; });
  if (it == walls_.end()) return false;
  total_points_ -= it->points.size();
  walls_.erase(it);
  ++version_;
  rebuild(width, height);
  return true;
}

void WallService::rebuild(double width, double height) {
  segments_.clear();
  for (const Wall& w : walls_) {
    const std::size_t n = w.points.size();
    const std::size_t count = w.closed ? n : n - 1;
    for (std::size_t i = 0; i < count; ++i)
      segments_.push_back({w.points[i], w.points[(i + 1) % n], w.closed || i + 1 < count});
  }
  start_.clear();
  cells_.clear();
  if (segments_.empty()) {
    cols_ = rows_ = 0;
    return;
  }
  cell_ = std::max(std::max(width, height) / kCellsPerSide, 1e-6);
  cols_ = std::max(1, static_cast<int>(std::ceil(width / cell_)));
  rows_ = std::max(1, static_cast<int>(std::ceil(height / cell_)));
  auto col = [&](double x) {
    return std::clamp(static_cast<int>(std::floor(x / cell_)), 0, cols_ - 1);
  };
  auto row = [&](double y) {
    return std::clamp(static_cast<int>(std::floor(y / cell_)), 0, rows_ - 1);
  };
  // Each segment in every cell it passes through, widened by a thousandth of a cell so that
  // rounding never leaves out a cell it grazes: (cell, segment) pairs, then a counting sort.
  const double eps = cell_ * 1e-3;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (std::uint32_t k = 0; k < segments_.size(); ++k) {
    const Vec2 a = segments_[k].a, b = segments_[k].b;
    const double y_lo = std::min(a.y, b.y), y_hi = std::max(a.y, b.y);
    for (int cy = row(y_lo - eps); cy <= row(y_hi + eps); ++cy) {
      const double band_lo = std::max(y_lo, cy * cell_), band_hi = std::min(y_hi, (cy + 1) * cell_);
      double x0 = std::min(a.x, b.x), x1 = std::max(a.x, b.x);
      if (a.y != b.y && band_lo <= band_hi) {  // the segment's x where it enters and leaves
        const double slope = (b.x - a.x) / (b.y - a.y);
        const double xa = a.x + (band_lo - a.y) * slope, xb = a.x + (band_hi - a.y) * slope;
        x0 = std::max(x0, std::min(xa, xb));
        x1 = std::min(x1, std::max(xa, xb));
      }
      for (int cx = col(x0 - eps); cx <= col(x1 + eps); ++cx)
        pairs.emplace_back(static_cast<std::uint32_t>(cy * cols_ + cx), k);
    }
  }
  start_.assign(static_cast<std::size_t>(cols_) * rows_ + 1, 0);
  for (const auto& [c, k] : pairs) ++start_[c + 1];
  for (std::size_t c = 1; c < start_.size(); ++c) start_[c] += start_[c - 1];
  cells_.resize(pairs.size());
  std::vector<std::uint32_t> fill(start_.begin(), start_.end() - 1);
  for (const auto& [c, k] : pairs) cells_[fill[c]++] = k;  // ascending segment within a cell
}

void WallService::query(Vec2 lo, Vec2 hi, std::vector<std::uint32_t>& found) const {
  found.clear();
  if (segments_.empty()) return;
  auto col = [&](double x) {
    return std::clamp(static_cast<int>(std::floor(std::clamp(x / cell_, -1.0, 1e9))), 0, cols_ - 1);
  };
  auto row = [&](double y) {
    return std::clamp(static_cast<int>(std::floor(std::clamp(y / cell_, -1.0, 1e9))), 0, rows_ - 1);
  };
  const int x0 = col(lo.x), x1 = col(hi.x), y0 = row(lo.y), y1 = row(hi.y);
  for (int cy = y0; cy <= y1; ++cy)
    for (int cx = x0; cx <= x1; ++cx) {
      const std::size_t c = static_cast<std::size_t>(cy) * cols_ + cx;
      found.insert(found.end(), cells_.begin() + start_[c], cells_.begin() + start_[c + 1]);
    }
  if (x0 == x1 && y0 == y1) return;  // one cell: ascending and each once already
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
}

bool segments_meet(Vec2 p, Vec2 q, Vec2 a, Vec2 b) {
  const auto cross = [](Vec2 o, Vec2 u, Vec2 v) {
    return (u.x - o.x) * (v.y - o.y) - (u.y - o.y) * (v.x - o.x);
  };
  const auto within_box = [](Vec2 u, Vec2 w, Vec2 v) {
    return std::min(u.x, w.x) <= v.x && v.x <= std::max(u.x, w.x) && std::min(u.y, w.y) <= v.y &&
           v.y <= std::max(u.y, w.y);
  };
  const double d1 = cross(a, b, p), d2 = cross(a, b, q);
  const double d3 = cross(p, q, a), d4 = cross(p, q, b);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
    return true;
  return (d1 == 0 && within_box(a, b, p)) || (d2 == 0 && within_box(a, b, q)) ||
         (d3 == 0 && within_box(p, q, a)) || (d4 == 0 && within_box(p, q, b));
}

bool WallService::blocks(Vec2 a, Vec2 b) const {
  if (segments_.empty()) return false;
  // The cells along the line, clamped to the grid (a segment off the grid is in its border
  // cells).
  const auto in_grid = [&](Vec2 p) {
    return Vec2{std::clamp(p.x / cell_, 0.0, cols_ - 1e-9),
                std::clamp(p.y / cell_, 0.0, rows_ - 1e-9)};
  };
  return walk_cells(in_grid(a), in_grid(b), [&](std::int64_t cx, std::int64_t cy) {
    const auto c = static_cast<std::size_t>(cy) * static_cast<std::size_t>(cols_) +
                   static_cast<std::size_t>(cx);
    for (std::uint32_t i = start_[c]; i < start_[c + 1]; ++i) {
      const Segment& s = segments_[cells_[i]];
      if (segments_meet(a, b, s.a, s.b)) return true;
    }
    return false;
  });
}

void WallService::note_starts(std::span<const Agent> agents) {
  starts_.clear();
  if (walls_.empty()) return;
  starts_.reserve(agents.size());
  for (const Agent& a : agents) starts_.emplace_back(a.id, a.position);
}

Vec2 WallService::start_of(const Agent& a, std::size_t index) const {
  if (index < starts_.size() && starts_[index].first == a.id) return starts_[index].second;
  const auto it = std::lower_bound(starts_.begin(), starts_.end(), a.id,
                                   [](const auto& e, AgentId id) { return e.first < id; });
  return it != starts_.end() && it->first == a.id ? it->second : a.position;
}

void WallService::hold(Agent& a, Vec2 start, double width, double height,
                       std::vector<std::uint32_t>& found) const {
  const double r = a.def.radius;
  const Vec2 p0 = start;
  Vec2 c = a.position;
  // Every segment the centre's moves below can meet: they stay in this box (pushes that would
  // leave it are not made), which holds the segment from p0 to any point of it.
  const double margin = 2 * r;
  const Vec2 lo{std::min(p0.x, c.x) - margin, std::min(p0.y, c.y) - margin};
  const Vec2 hi{std::max(p0.x, c.x) + margin, std::max(p0.y, c.y) + margin};
  query(lo, hi, found);
  if (found.empty()) return;
  auto crosses_any = [&](Vec2 to) {
    return std::any_of(found.begin(), found.end(), [&](std::uint32_t k) {
      return crosses_segment(p0, to, segments_[k].a, segments_[k].b);
    });
  };
  // 1. The centre's move this tick, cut short where it first meets a wall.
  for (int cut = 0;; ++cut) {
    double first = 2;
    const Segment* hit = nullptr;
    for (std::uint32_t k : found) {
      const Segment& s = segments_[k];
      if (!crosses_segment(p0, c, s.a, s.b)) continue;
      const double s0 = orient(s.a, s.b, p0), s1 = orient(s.a, s.b, c);
      const double t = s0 / (s0 - s1);  // where along the move it meets the wall's line
      if (t < first) {
        first = t;
        hit = &s;
      }
    }
    if (!hit) break;
    const Vec2 n = left_normal(hit->a, hit->b) * (orient(hit->a, hit->b, p0) > 0 ? 1.0 : -1.0);
    stop_into(a.velocity, n);
    if (cut == kMaxCuts) {  // rounding keeps it on the wall: it stays where it began
      c = p0;
      break;
    }
    c = p0 + (c - p0) * (first * (1 - kBackOff));
  }
  // 2. The disc out of the segments it overlaps, deepest first, along the segment's normal (or
  // away from its end), on the side the centre is on. Where the push leaves it overlapping
  // another, both are met at once: the point at distance r from both, as Box2D's block solver
  // meets two contacts together (one at a time, an acute corner would take many passes). A push
  // that would carry the centre across a wall, out of the world or out of the box is not made.
  struct Contact {
    const Segment* s = nullptr;
    Vec2 q, n;  // the nearest point of the segment, and the way out from it
    double depth = 0;
  };
  // The contact of the disc at `at` with segment s, its way out towards `at` (on the wall: to
  // the side the agent came from).
  auto contact = [&](const Segment& s, Vec2 at) {
    const Vec2 q = closest_on_segment(at, s.a, s.b);
    Vec2 n = normalized_or_zero(at - q);
    if (n == Vec2{}) n = left_normal(s.a, s.b) * (orient(s.a, s.b, p0) >= 0 ? 1.0 : -1.0);
    return Contact{&s, q, n, r - length(at - q)};
  };
  // The segment the disc at `at` overlaps deepest, but `skip`.
  auto deepest = [&](Vec2 at, const Segment* skip) {
    Contact best;
    for (std::uint32_t k : found) {
      const Segment& s = segments_[k];
      if (&s == skip) continue;
      const double d2 = length_squared(at - closest_on_segment(at, s.a, s.b));
      if (d2 >= r * r * (1 - kTouch)) continue;
      const double depth = r - std::sqrt(d2);
      if (!best.s || depth > best.depth) best = contact(s, at);
    }
    return best;
  };
  auto allowed = [&](Vec2 to) {
    return in_box(to, lo, hi) && in_box(to, {0, 0}, {width, height}) && !crosses_any(to);
  };
  for (int pass = 0; pass < kPushPasses; ++pass) {
    const Contact first = deepest(c, nullptr);
    if (!first.s) break;
    Vec2 to = first.q + first.n * r;
    // Another the push leaves it in, with its way out as seen from where the centre is now (from
    // the pushed point it may already be on the wrong side of it).
    Contact second = deepest(to, first.s);
    if (second.s) second = contact(*second.s, c);
    bool both = false;
    if (const double det = cross(first.n, second.n); second.s && std::abs(det) > 1e-6) {
      // n1 . x = n1 . q1 + r and n2 . x = n2 . q2 + r
      const double d1 = dot(first.n, first.q) + r, d2 = dot(second.n, second.q) + r;
      const Vec2 x{(d1 * second.n.y - d2 * first.n.y) / det,
                   (first.n.x * d2 - second.n.x * d1) / det};
      if (allowed(x)) {
        to = x;
        both = true;
      }
    }
    if (!both && !allowed(to)) break;
    c = to;
    stop_into(a.velocity, first.n);
    if (both) stop_into(a.velocity, second.n);
  }
  // 3. Inside the world as integration keeps it, unless that would cross a wall.
  const double rx = std::min(r, width / 2), ry = std::min(r, height / 2);
  const Vec2 in{std::clamp(c.x, rx, width - rx), std::clamp(c.y, ry, height - ry)};
  if (in != c && !crosses_any(in)) c = in;
  a.position = c;
}

template <CheckpointStream S>
std::string WallService::serialize(S& s, double width, double height) {
  s.u32(next_id_);
  s.u64(version_);
  s.items(walls_, 13, [&](Wall& w) {
    s.u32(w.id);
    s.boolean(w.closed);
    s.items(w.points, 16, [&](Vec2& p) { s.vec(p); });
    bool is_limit = false;
    s.check(w.id != 0 && w.id < next_id_ &&
            problem(w.points, w.closed, width, height, 0, 0, is_limit).empty());
  });
  s.check(walls_.size() <= WallLimits::kMaxWalls);
  if (!s.ok()) return "the checkpoint's walls are corrupt";
  std::size_t total = 0;
  for (std::size_t i = 0; i < walls_.size(); ++i) {
    if (i > 0 && walls_[i].id <= walls_[i - 1].id) return "the checkpoint's walls are out of order";
    total += walls_[i].points.size();
  }
  if (total > WallLimits::kMaxTotalPoints) return "the checkpoint's walls hold too many points";
  if constexpr (S::kLoading) {
    total_points_ = total;
    rebuild(width, height);
  }
  return {};
}

template std::string WallService::serialize(Save&, double, double);
template std::string WallService::serialize(Load&, double, double);

}  // namespace herd::sim
