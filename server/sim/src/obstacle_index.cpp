#include "obstacle_index.hpp"

#include <algorithm>

#include "herd/sim/world_def.hpp"

namespace herd::sim {
namespace {

int size_class(double radius) {
  const double ratio = std::max(radius / ObstacleLimits::kMinRadius, 1.0);
  return static_cast<int>(std::floor(std::log2(ratio) / 2));  // log base 4
}

}  // namespace

void ObstacleIndex::rebuild(std::span<const Obstacle> obstacles, double width, double height) {
  for (SizeClass& c : classes_) {
    c.members.clear();
    c.max_radius = 0;
  }
  for (std::size_t k = 0; k < obstacles.size(); ++k) {
    const int index = size_class(obstacles[k].radius);
    auto it = std::lower_bound(classes_.begin(), classes_.end(), index,
                               [](const SizeClass& c, int i) { return c.index < i; });
    if (it == classes_.end() || it->index != index) {
      it = classes_.insert(it, SizeClass{});
      it->index = index;
    }
    it->members.push_back(static_cast<std::uint32_t>(k));
    it->max_radius = std::max(it->max_radius, obstacles[k].radius);
  }
  std::erase_if(classes_, [](const SizeClass& c) { return c.members.empty(); });
  for (SizeClass& c : classes_) {
    c.centres.clear();
    for (std::uint32_t k : c.members) c.centres.push_back(obstacles[k].position);
    c.grid.rebuild(c.centres, width, height,
                   SpatialGrid::cell_size_for(c.centres.size(), width, height,
                                              std::max(4 * c.max_radius, 1.0)));
  }
}

std::size_t ObstacleIndex::memory_bytes() const {
  std::size_t total = classes_.capacity() * sizeof(SizeClass);
  for (const SizeClass& c : classes_)
    total += c.members.capacity() * sizeof(std::uint32_t) + c.centres.capacity() * sizeof(Vec2) +
             c.grid.memory_bytes();
  return total;
}

}  // namespace herd::sim
