// What blocks a team's sight (visibility.hpp: SightLines): the tile map's blocked tiles, walls and
// obstacles, as terrain blocks sight in StarCraft II and 0 A.D. A line between two agents' centres
// is blocked when it enters a blocked tile, touches a wall segment or passes through an
// obstacle's disc. A world without them is seen as it always was.
#include <algorithm>
#include <cmath>
#include <limits>

#include "geometry.hpp"
#include "visibility.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

class WorldSightLines final : public SightLines {
 public:
  // `index`: the obstacles' index, or null when it is older than they are (a command changed them
  // since the last step): then each obstacle is tried.
  WorldSightLines(const TileMap* map, const WallService& walls, std::span<const Obstacle> obstacles,
                  const ObstacleIndex* index)
      : map_(map), walls_(walls), obstacles_(obstacles), index_(index) {}

  bool blocked(Vec2 from, Vec2 to) const override {
    return (map_ && tiles_block(from, to)) || (!walls_.empty() && walls_block(from, to)) ||
           (!obstacles_.empty() && obstacles_block(from, to));
  }

 private:
  // The tiles the line passes through, in order: any blocked one on the map blocks it. Tiles off
  // the map (a world larger than its map) block nothing.
  bool tiles_block(Vec2 a, Vec2 b) const {
    const double s = map_->tile_size();
    return walk_cells(a * (1 / s), b * (1 / s), [&](std::int64_t x, std::int64_t y) {
      const TileCoord t{static_cast<std::int32_t>(x), static_cast<std::int32_t>(y)};
      return map_->in_bounds(t) && map_->blocked(t);
    });
  }

  bool walls_block(Vec2 a, Vec2 b) const { return walls_.blocks(a, b); }

  bool obstacles_block(Vec2 a, Vec2 b) const {
    const Vec2 mid = (a + b) * 0.5;
    const double half = length(b - a) * 0.5;
    const auto through = [&](const Obstacle& o) {
      return length_squared(closest_on_segment(o.position, a, b) - o.position) <
             o.radius * o.radius;
    };
    if (!index_) return std::any_of(obstacles_.begin(), obstacles_.end(), through);
    bool hit = false;
    index_->query_within(mid, half, [&](std::uint32_t k) { hit = hit || through(obstacles_[k]); });
    return hit;
  }

  const TileMap* map_;
  const WallService& walls_;
  std::span<const Obstacle> obstacles_;
  const ObstacleIndex* index_;
};

}  // namespace

void WorldImpl::points_seen(std::uint8_t team, std::span<const Vec2> points,
                            std::vector<std::uint8_t>& out) const {
  if (!map_ && walls_.empty() && obstacles_.items.empty())
    return compute_points_seen(agents_, team, points, out);
  const bool indexed = neighbours_.obstacle_grid_version == obstacles_.version;
  const WorldSightLines lines(map_ ? &*map_ : nullptr, walls_, obstacles_.items,
                              indexed ? &neighbours_.obstacle_index : nullptr);
  compute_points_seen(agents_, team, points, out, &lines);
}

void WorldImpl::seen_by(std::vector<std::uint64_t>& out) const {
  if (!map_ && walls_.empty() && obstacles_.items.empty()) return compute_seen_by(agents_, out);
  const bool indexed = neighbours_.obstacle_grid_version == obstacles_.version;
  const WorldSightLines lines(map_ ? &*map_ : nullptr, walls_, obstacles_.items,
                              indexed ? &neighbours_.obstacle_index : nullptr);
  compute_seen_by(agents_, out, &lines);
}

}  // namespace herd::sim
