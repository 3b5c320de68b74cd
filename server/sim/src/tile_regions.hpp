// herd::sim::TileRegions — which walkable tiles can reach which: the map's connected regions under
// the grid's moves (grid_graph.hpp, symmetric), labelled in one pass. A goal is reachable from a
// tile exactly when both are in the same region, so a command's check costs a look-up per agent
// instead of a search or a flow field.
#pragma once

#include <cstdint>
#include <vector>

#include "grid_graph.hpp"
#include "herd/sim/tile_map.hpp"

namespace herd::sim {

class TileRegions {
 public:
  static constexpr std::uint32_t kNone = 0;  // region of a blocked or out-of-bounds tile

  // Labels every tile of `map`: O(tiles), reusing its buffers.
  void label(const TileMap& map, Neighbourhood neighbourhood);
  std::uint32_t region(TileCoord t) const {
    if (t.x < 0 || t.y < 0 || t.x >= width_ || t.y >= height_) return kNone;
    return labels_[static_cast<std::size_t>(t.y) * static_cast<std::size_t>(width_) +
                   static_cast<std::size_t>(t.x)];
  }
  bool connected(TileCoord a, TileCoord b) const {
    const std::uint32_t r = region(a);
    return r != kNone && r == region(b);
  }

 private:
  std::int32_t width_ = 0;
  std::int32_t height_ = 0;
  std::vector<std::uint32_t> labels_;
  std::vector<std::uint32_t> stack_;  // scratch: the flood fill's tiles to visit
};

}  // namespace herd::sim
