#include "astar.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

#include "tile_collision.hpp"

namespace herd::sim {

const char* to_string(PathStatus status) {
  switch (status) {
    case PathStatus::found:
      return "found";
    case PathStatus::start_outside:
      return "start_outside";
    case PathStatus::goal_outside:
      return "goal_outside";
    case PathStatus::start_blocked:
      return "start_blocked";
    case PathStatus::goal_blocked:
      return "goal_blocked";
    case PathStatus::unreachable:
      return "unreachable";
  }
  return "unknown";
}

void PathFinder::prepare(std::size_t tile_count) {
  if (g_.size() != tile_count) {
    g_.assign(tile_count, 0.0);
    parent_.assign(tile_count, 0);
    stamp_.assign(tile_count, 0);
    query_ = 0;
  }
  if (++query_ == 0) {  // the stamp wrapped around: forget every tile once, then carry on
    std::fill(stamp_.begin(), stamp_.end(), 0u);
    query_ = 1;
  }
  open_.clear();
}

PathResult PathFinder::find(const TileMap& map, TileCoord start, TileCoord goal,
                            Neighbourhood neighbourhood, std::vector<TileCoord>& path) {
  path.clear();
  begin(map, start, goal, neighbourhood);
  resume(map, std::numeric_limits<std::uint32_t>::max(), path);
  return result_;
}

namespace {
// Max-heap comparator meaning "a comes out after b": lower f first; among equal f the larger g
// (nearer the goal, fewer expansions); then the lower index, a total order for determinism.
template <class Entry>
bool later(const Entry& a, const Entry& b) {
  if (a.f != b.f) return a.f > b.f;
  if (a.g != b.g) return a.g < b.g;
  return a.index > b.index;
}
}  // namespace

void PathFinder::begin(const TileMap& map, TileCoord start, TileCoord goal,
                       Neighbourhood neighbourhood) {
  running_ = false;
  result_ = {};
  if (!map.in_bounds(start)) {
    result_.status = PathStatus::start_outside;
    return;
  }
  if (!map.in_bounds(goal)) {
    result_.status = PathStatus::goal_outside;
    return;
  }
  if (map.blocked(start)) {
    result_.status = PathStatus::start_blocked;
    return;
  }
  if (map.blocked(goal)) {
    result_.status = PathStatus::goal_blocked;
    return;
  }
  prepare(map.tile_count());
  goal_ = goal;
  goal_index_ = static_cast<std::uint32_t>(map.index(goal));
  neighbourhood_ = neighbourhood;
  const auto start_index = static_cast<std::uint32_t>(map.index(start));
  g_[start_index] = 0.0;
  parent_[start_index] = start_index;
  stamp_[start_index] = query_;
  open_.push_back({grid_heuristic(neighbourhood, start, goal), 0.0, start_index});
  running_ = true;
}

bool PathFinder::resume(const TileMap& map, std::uint32_t max_expansions,
                        std::vector<TileCoord>& path) {
  path.clear();
  if (!running_) return true;
  const auto open = [&](std::uint32_t index, double g, std::uint32_t parent) {
    g_[index] = g;
    parent_[index] = parent;
    stamp_[index] = query_;
    open_.push_back({g + grid_heuristic(neighbourhood_, map.coord(index), goal_), g, index});
    std::push_heap(open_.begin(), open_.end(), later<OpenEntry>);
  };
  const int steps = step_count(neighbourhood_);
  std::uint32_t budget = max_expansions;
  while (!open_.empty()) {
    // Stop before the next expansion, not after a lazily deleted entry: the budget counts tiles.
    if (budget == 0) return false;
    std::pop_heap(open_.begin(), open_.end(), later<OpenEntry>);
    const OpenEntry current = open_.back();
    open_.pop_back();
    // Lazy deletion: a tile reopened with a lower g left its older entries behind.
    if (current.g > g_[current.index]) continue;
    ++result_.expanded;
    --budget;
    if (current.index == goal_index_) {
      result_.status = PathStatus::found;
      result_.cost = current.g;
      trace_path(map, goal_index_, path);
      running_ = false;
      return true;
    }
    const TileCoord tile = map.coord(current.index);
    for (int s = 0; s < steps; ++s) {
      const GridStep& step = kGridSteps[s];
      if (!can_step(map, tile, step)) continue;
      const auto next = static_cast<std::uint32_t>(map.index({tile.x + step.dx, tile.y + step.dy}));
      const double g = current.g + step.cost;
      // Any cheaper route is taken, even to a tile expanded before: the heuristic is consistent,
      // but rounding could otherwise cost the last ulp of optimality.
      if (stamp_[next] != query_ || g < g_[next]) open(next, g, current.index);
    }
  }
  result_.status = PathStatus::unreachable;
  running_ = false;
  return true;
}

void PathFinder::trace_path(const TileMap& map, std::uint32_t goal_index,
                            std::vector<TileCoord>& path) const {
  std::uint32_t index = goal_index;
  path.push_back(map.coord(index));
  while (parent_[index] != index) {  // the start is its own parent
    index = parent_[index];
    path.push_back(map.coord(index));
  }
  std::reverse(path.begin(), path.end());
}

void path_points(const TileMap& map, std::span<const TileCoord> tiles, std::vector<Vec2>& out) {
  out.clear();
  out.reserve(tiles.size());
  for (const TileCoord t : tiles) out.push_back(map.tile_centre(t));
}

void string_pull(const TileMap& map, std::span<const Vec2> points, double radius,
                 std::vector<Vec2>& out) {
  assert(points.empty() || out.data() != points.data());
  out.clear();
  if (points.empty()) return;
  std::size_t anchor = 0;
  out.push_back(points[0]);
  while (anchor + 1 < points.size()) {
    // The next input point is always acceptable (worst case: the input segment itself); go
    // further while the straight line from the anchor stays clear.
    std::size_t reach = anchor + 1;
    while (reach + 1 < points.size() &&
           clear_segment(map, points[anchor], points[reach + 1], radius))
      ++reach;
    out.push_back(points[reach]);
    anchor = reach;
  }
}

}  // namespace herd::sim
