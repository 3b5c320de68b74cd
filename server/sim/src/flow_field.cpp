#include "flow_field.hpp"

#include <algorithm>
#include <cmath>

namespace herd::sim {

PathStatus FlowField::build(const TileMap& map, TileCoord goal, Neighbourhood neighbourhood) {
  const PathStatus status = begin(map, goal, neighbourhood);
  resume(map, UINT64_MAX);
  return status;
}

PathStatus FlowField::begin(const TileMap& map, TileCoord goal, Neighbourhood neighbourhood) {
  width_ = map.width();
  height_ = map.height();
  tile_size_ = map.tile_size();
  goal_ = goal;
  neighbourhood_ = neighbourhood;
  map_revision_ = map.revision();
  distance_.assign(map.tile_count(), kUnreachable);
  step_.assign(map.tile_count(), kNoStep);
  open_.clear();
  built_ = false;
  work_ = 0;
  next_step_tile_ = 0;
  phase_ = Phase::complete;  // every tile unreachable, at once
  if (!map.in_bounds(goal)) return PathStatus::goal_outside;
  if (map.blocked(goal)) return PathStatus::goal_blocked;
  const auto goal_index = static_cast<std::uint32_t>(map.index(goal_));
  distance_[goal_index] = 0.0;
  open_.push_back({0.0, goal_index});
  phase_ = Phase::dijkstra;
  return PathStatus::found;
}

bool FlowField::resume(const TileMap& map, std::uint64_t budget) {
  if (phase_ == Phase::dijkstra) {
    budget -= run_dijkstra(map, budget);
    if (open_.empty()) phase_ = Phase::steps;
  }
  if (phase_ == Phase::steps) {
    choose_steps(map, budget);
    if (next_step_tile_ == distance_.size()) {
      phase_ = Phase::complete;
      built_ = true;
    }
  }
  return phase_ == Phase::complete;
}

std::uint64_t FlowField::run_dijkstra(const TileMap& map, std::uint64_t budget) {
  // Min-heap by distance, then tile index: a total order, so the same map gives the same field
  // with every standard library.
  const auto later = [](const OpenEntry& a, const OpenEntry& b) {
    if (a.distance != b.distance) return a.distance > b.distance;
    return a.index > b.index;
  };
  const int steps = step_count(neighbourhood_);
  std::uint64_t used = 0;
  while (!open_.empty() && used < budget) {
    ++used;
    std::pop_heap(open_.begin(), open_.end(), later);
    const OpenEntry current = open_.back();
    open_.pop_back();
    if (current.distance > distance_[current.index]) continue;  // superseded entry
    const TileCoord tile = map.coord(current.index);
    // Moves are symmetric (grid_graph.hpp), so expanding outwards from the goal gives the cost
    // of the cheapest path *to* the goal.
    for (int s = 0; s < steps; ++s) {
      const GridStep& step = kGridSteps[s];
      if (!can_step(map, tile, step)) continue;
      const auto next = static_cast<std::uint32_t>(map.index({tile.x + step.dx, tile.y + step.dy}));
      const double d = current.distance + step.cost;
      if (distance_[next] < 0.0 || d < distance_[next]) {
        distance_[next] = d;
        open_.push_back({d, next});
        std::push_heap(open_.begin(), open_.end(), later);
      }
    }
  }
  work_ += used;
  return used;
}

std::uint64_t FlowField::choose_steps(const TileMap& map, std::uint64_t budget) {
  // Afterwards rather than as Dijkstra parents, so each tile's step depends only on the final
  // distances and the fixed step order, not on the order tiles happened to be settled in.
  const int steps = step_count(neighbourhood_);
  std::uint64_t used = 0;
  for (; next_step_tile_ < distance_.size() && used < budget; ++next_step_tile_) {
    const std::size_t i = next_step_tile_;
    ++used;
    if (distance_[i] <= 0.0) continue;  // the goal, or unreachable
    const TileCoord tile = map.coord(i);
    double best = 0.0;
    std::uint8_t best_step = kNoStep;
    for (int s = 0; s < steps; ++s) {
      const GridStep& step = kGridSteps[s];
      if (!can_step(map, tile, step)) continue;
      const double via = step.cost + distance_[map.index({tile.x + step.dx, tile.y + step.dy})];
      if (best_step == kNoStep || via < best) {
        best = via;
        best_step = static_cast<std::uint8_t>(s);
      }
    }
    step_[i] = best_step;
  }
  work_ += used;
  return used;
}

std::optional<TileCoord> FlowField::next_tile(TileCoord t) const {
  const std::uint8_t s = step(t);
  if (s == kNoStep) return std::nullopt;
  return TileCoord{t.x + kGridSteps[s].dx, t.y + kGridSteps[s].dy};
}

Vec2 FlowField::tile_direction(TileCoord t) const {
  const std::uint8_t s = step(t);
  if (s == kNoStep) return {};
  const GridStep& step = kGridSteps[s];
  return Vec2{static_cast<double>(step.dx), static_cast<double>(step.dy)} * (1.0 / step.cost);
}

Vec2 FlowField::sample(Vec2 p) const {
  if (!built_ || !std::isfinite(p.x) || !std::isfinite(p.y)) return {};
  // As TileMap::tile_at: off the map clamps to the nearest out-of-bounds tile (unreachable).
  const auto tile_index = [this](double v, std::int32_t count) {
    return static_cast<std::int32_t>(
        std::clamp(std::floor(v / tile_size_), -1.0, static_cast<double>(count)));
  };
  const TileCoord t{tile_index(p.x, width_), tile_index(p.y, height_)};
  if (!reachable(t)) return {};
  const TileCoord aim = t == goal_ ? goal_ : *next_tile(t);
  const Vec2 centre{(aim.x + 0.5) * tile_size_, (aim.y + 0.5) * tile_size_};
  return normalized_or_zero(centre - p);
}

std::size_t FlowField::memory_bytes() const {
  return distance_.capacity() * sizeof(double) + step_.capacity() * sizeof(std::uint8_t) +
         open_.capacity() * sizeof(OpenEntry);
}

}  // namespace herd::sim
