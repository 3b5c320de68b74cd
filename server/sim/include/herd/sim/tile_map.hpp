// herd::sim::TileMap — a grid of walkable and blocked tiles laid over the world.
//
// The map covers [0, width*tile_size) x [0, height*tile_size) in world units, with its origin at
// world (0, 0) and y growing downwards (as the world and the no-backtracking walker's canvas do).
// Tile (x, y) is the half-open square [x*s, (x+1)*s) x [y*s, (y+1)*s), s = tile_size, so every
// point of the map lies in exactly one tile. Everything outside the map counts as blocked: agents
// stay on the map.
//
// Geometry against the map (line of sight, circles versus tiles) is in tile_collision.hpp; the
// no-backtracking walker, A* and flow fields are in grid_walker.hpp, astar.hpp and flow_field.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "types.hpp"
#include "vec2.hpp"

namespace herd::sim {

// Empty when def is usable, else one sentence saying what is wrong (for an `error` message).
std::string validate(const TileMapDef& def);

class TileMap {
 public:
  // def must satisfy validate(def) (asserted); boundaries use make_tile_map() instead.
  explicit TileMap(TileMapDef def);

  std::int32_t width() const { return width_; }                                    // tiles
  std::int32_t height() const { return height_; }                                  // tiles
  double tile_size() const { return tile_size_; }                                  // units
  Vec2 world_size() const { return {width_ * tile_size_, height_ * tile_size_}; }  // units
  std::size_t tile_count() const { return cells_.size(); }

  bool in_bounds(TileCoord t) const {
    return t.x >= 0 && t.y >= 0 && t.x < width_ && t.y < height_;
  }
  // Out-of-bounds tiles are blocked, so callers never need a separate bounds check.
  bool blocked(TileCoord t) const { return !in_bounds(t) || cells_[index(t)] != kWalkable; }
  bool blocked(std::int32_t x, std::int32_t y) const { return blocked(TileCoord{x, y}); }
  bool walkable(TileCoord t) const { return !blocked(t); }

  // Changes one tile (t must be in bounds, asserted). Bumps revision() when the value changes.
  void set_blocked(TileCoord t, bool blocked);
  // Counts changes since construction, so a cached path or flow field can tell it is stale.
  std::uint64_t revision() const { return revision_; }

  // Row-major index of an in-bounds tile, and back.
  std::size_t index(TileCoord t) const {
    return static_cast<std::size_t>(t.y) * static_cast<std::size_t>(width_) +
           static_cast<std::size_t>(t.x);
  }
  TileCoord coord(std::size_t index) const {
    return {static_cast<std::int32_t>(index % static_cast<std::size_t>(width_)),
            static_cast<std::int32_t>(index / static_cast<std::size_t>(width_))};
  }
  std::span<const std::uint8_t> cells() const { return cells_; }

  // The tile containing world point p: floor(p / tile_size). Points off the map give coordinates
  // clamped to [-1, width] x [-1, height] (out of bounds, hence blocked) so nothing overflows;
  // a NaN coordinate gives -1.
  TileCoord tile_at(Vec2 p) const;
  // World position of a tile's centre and of its top-left corner (any tile, in bounds or not).
  Vec2 tile_centre(TileCoord t) const {
    return {(t.x + 0.5) * tile_size_, (t.y + 0.5) * tile_size_};
  }
  Vec2 tile_min(TileCoord t) const { return {t.x * tile_size_, t.y * tile_size_}; }

 private:
  std::int32_t width_ = 0;
  std::int32_t height_ = 0;
  double tile_size_ = 0.0;
  std::vector<std::uint8_t> cells_;
  std::uint64_t revision_ = 0;
};

// A map, or one sentence saying what is wrong with the definition.
std::variant<TileMap, std::string> make_tile_map(TileMapDef def);

// Text maps (server/scenarios/maps/*.txt): one line per row of tiles, top row first; '#' is a
// blocked tile, '.' a walkable one; every row has the same length. Lines starting with ';' are
// comments; empty lines (and '\r' before '\n') are ignored. Errors name the line and column.
std::variant<TileMap, std::string> parse_tile_map(std::string_view text, double tile_size);

// The grid in the text form above, without comments: parse_tile_map(to_text(m), s) == m.
std::string to_text(const TileMap& map);

}  // namespace herd::sim
