#include "tile_regions.hpp"

namespace herd::sim {

void TileRegions::label(const TileMap& map, Neighbourhood neighbourhood) {
  width_ = map.width();
  height_ = map.height();
  labels_.assign(map.tile_count(), kNone);
  const int steps = step_count(neighbourhood);
  std::uint32_t next = kNone;
  for (std::size_t start = 0; start < labels_.size(); ++start) {
    if (labels_[start] != kNone || map.blocked(map.coord(start))) continue;
    labels_[start] = ++next;
    stack_.assign(1, static_cast<std::uint32_t>(start));
    while (!stack_.empty()) {
      const TileCoord tile = map.coord(stack_.back());
      stack_.pop_back();
      for (int s = 0; s < steps; ++s) {
        const GridStep& step = kGridSteps[s];
        if (!can_step(map, tile, step)) continue;
        const std::size_t n = map.index({tile.x + step.dx, tile.y + step.dy});
        if (labels_[n] != kNone) continue;
        labels_[n] = next;
        stack_.push_back(static_cast<std::uint32_t>(n));
      }
    }
  }
}

}  // namespace herd::sim
