// herd::sim::ObstacleIndex — the static obstacles for neighbour and contact queries, in one
// uniform grid per size class.
//
// One grid for every obstacle would need cells as large as the largest obstacle, and every query
// a reach as long as its radius: a single obstacle of radius 300 among thousands of radius 0.5
// made each agent's query cover hundreds of small ones (a tick 20 times slower). So obstacles are
// sorted into classes whose radii are within a factor of 4 of each other, and each class has its
// own grid, cells sized for its largest member; a query asks each class with that class's reach.
// A world whose obstacles all fall in one class has the one grid it always had.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "herd/sim/agent.hpp"
#include "spatial_grid.hpp"

namespace herd::sim {

class ObstacleIndex {
 public:
  // Sorts `obstacles` into their classes, each class's grid over [0,width] x [0,height].
  void rebuild(std::span<const Obstacle> obstacles, double width, double height);

  // Calls visit(k) for every obstacles[k] that may lie within `reach` of `centre` plus its own
  // radius (reach(r) gives the query's radius for obstacles of radius up to r), class by class,
  // in each class's grid order: a deterministic order. The caller checks the exact distance.
  template <class Reach, class Visit>
  void query(Vec2 centre, Reach&& reach, Visit&& visit) const {
    for (const SizeClass& c : classes_)
      c.grid.query(centre, reach(c.max_radius), [&](std::uint32_t k) { visit(c.members[k]); });
  }
  // The same with reach(r) = base + r.
  template <class Visit>
  void query_within(Vec2 centre, double base, Visit&& visit) const {
    query(
        centre, [base](double r) { return base + r; }, static_cast<Visit&&>(visit));
  }

  bool empty() const { return classes_.empty(); }
  std::size_t classes() const { return classes_.size(); }
  std::size_t memory_bytes() const;

 private:
  struct SizeClass {
    int index = 0;  // floor(log4(radius / ObstacleLimits::kMinRadius))
    double max_radius = 0;
    std::vector<std::uint32_t> members;  // indices into the obstacles, ascending
    std::vector<Vec2> centres;           // scratch: the members' positions
    SpatialGrid grid;
  };
  std::vector<SizeClass> classes_;  // non-empty ones, smallest first
};

}  // namespace herd::sim
