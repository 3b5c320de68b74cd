#include "herd/sim/tile_map.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

namespace herd::sim {
namespace {

constexpr char kBlockedChar = '#';
constexpr char kWalkableChar = '.';
constexpr char kCommentChar = ';';

// floor(v / size) as a tile coordinate clamped to [-1, count]: anything beyond the map is the
// nearest out-of-bounds tile, and a huge or NaN v cannot overflow the int conversion.
std::int32_t tile_index(double v, double size, std::int32_t count) {
  const double t = std::floor(v / size);
  if (!(t >= -1.0)) return -1;  // also NaN
  if (t > static_cast<double>(count)) return count;
  return static_cast<std::int32_t>(t);
}

}  // namespace

std::string validate(const TileMapDef& def) {
  using L = TileMapLimits;
  if (def.width < 1 || def.height < 1)
    return "tile map must be at least 1 x 1 tiles (got " + std::to_string(def.width) + " x " +
           std::to_string(def.height) + ")";
  if (def.width > L::kMaxSide || def.height > L::kMaxSide)
    return "tile map is " + std::to_string(def.width) + " x " + std::to_string(def.height) +
           " tiles; at most " + std::to_string(L::kMaxSide) + " x " + std::to_string(L::kMaxSide) +
           " are allowed";
  if (!std::isfinite(def.tile_size) || def.tile_size < L::kMinTileSize ||
      def.tile_size > L::kMaxTileSize)
    return "tile size must be a finite number of units in [0.001, 10000]";
  const std::size_t expected =
      static_cast<std::size_t>(def.width) * static_cast<std::size_t>(def.height);
  if (def.cells.size() != expected)
    return "tile map has " + std::to_string(def.cells.size()) + " cells, expected " +
           std::to_string(expected) + " (" + std::to_string(def.width) + " x " +
           std::to_string(def.height) + ")";
  for (std::size_t i = 0; i < def.cells.size(); ++i) {
    if (def.cells[i] != kWalkable && def.cells[i] != kBlocked)
      return "tile map cell " + std::to_string(i) + " is " + std::to_string(def.cells[i]) +
             "; cells must be 0 (walkable) or 1 (blocked)";
  }
  return {};
}

TileMap::TileMap(TileMapDef def) {
  assert(validate(def).empty());
  width_ = def.width;
  height_ = def.height;
  tile_size_ = def.tile_size;
  cells_ = std::move(def.cells);
}

void TileMap::set_blocked(TileCoord t, bool blocked) {
  assert(in_bounds(t));
  const std::uint8_t value = blocked ? kBlocked : kWalkable;
  std::uint8_t& cell = cells_[index(t)];
  if (cell == value) return;
  cell = value;
  ++revision_;
}

TileCoord TileMap::tile_at(Vec2 p) const {
  return {tile_index(p.x, tile_size_, width_), tile_index(p.y, tile_size_, height_)};
}

std::variant<TileMap, std::string> make_tile_map(TileMapDef def) {
  std::string error = validate(def);
  if (!error.empty()) return error;
  return TileMap(std::move(def));
}

std::variant<TileMap, std::string> parse_tile_map(std::string_view text, double tile_size) {
  TileMapDef def;
  def.tile_size = tile_size;
  std::size_t line_no = 0;
  std::size_t first_row_line = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == kCommentChar) continue;
    // Refuse absurd input before storing it, so a huge text cannot make us allocate a huge map.
    if (line.size() > static_cast<std::size_t>(TileMapLimits::kMaxSide) ||
        def.height >= TileMapLimits::kMaxSide)
      return "line " + std::to_string(line_no) + ": tile map is larger than " +
             std::to_string(TileMapLimits::kMaxSide) + " x " +
             std::to_string(TileMapLimits::kMaxSide) + " tiles";
    if (def.height == 0) {
      def.width = static_cast<std::int32_t>(line.size());
      first_row_line = line_no;
    } else if (line.size() != static_cast<std::size_t>(def.width)) {
      return "line " + std::to_string(line_no) + ": row has " + std::to_string(line.size()) +
             " tiles, expected " + std::to_string(def.width) + " like the first row (line " +
             std::to_string(first_row_line) + ")";
    }
    for (std::size_t col = 0; col < line.size(); ++col) {
      const char c = line[col];
      if (c != kBlockedChar && c != kWalkableChar)
        return "line " + std::to_string(line_no) + ", column " + std::to_string(col + 1) +
               ": unexpected character '" + std::string(1, c) +
               "' (use '#' for a blocked tile, '.' for a walkable one)";
      def.cells.push_back(c == kBlockedChar ? kBlocked : kWalkable);
    }
    ++def.height;
  }
  if (def.height == 0) return "tile map text has no rows";
  return make_tile_map(std::move(def));
}

std::string to_text(const TileMap& map) {
  std::string out;
  out.reserve(static_cast<std::size_t>(map.width() + 1) * static_cast<std::size_t>(map.height()));
  for (std::int32_t y = 0; y < map.height(); ++y) {
    for (std::int32_t x = 0; x < map.width(); ++x)
      out.push_back(map.blocked(x, y) ? kBlockedChar : kWalkableChar);
    out.push_back('\n');
  }
  return out;
}

}  // namespace herd::sim
