// TileMap: validation, bounds, conversions between tiles and world points, the text format.
#include "herd/sim/tile_map.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <variant>

#include "pathing_test_util.hpp"

namespace herd::sim {
namespace {

TileMapDef def_of(std::int32_t w, std::int32_t h, double tile_size = 10.0) {
  return {w, h, tile_size,
          std::vector<std::uint8_t>(static_cast<std::size_t>(std::max(0, w * h)), kWalkable)};
}

std::string error_of(const std::variant<TileMap, std::string>& made) {
  const auto* error = std::get_if<std::string>(&made);
  return error ? *error : std::string{};
}

TEST(TileMapValidate, AcceptsAWellFormedMap) {
  EXPECT_EQ(validate(def_of(20, 15)), "");
  EXPECT_EQ(validate(def_of(1, 1)), "");
  EXPECT_EQ(validate(def_of(1024, 1024)), "");
}

TEST(TileMapValidate, RejectsMalformedDefinitionsWithAClearMessage) {
  EXPECT_EQ(validate(def_of(0, 15)), "tile map must be at least 1 x 1 tiles (got 0 x 15)");
  EXPECT_EQ(validate(def_of(3, -2)), "tile map must be at least 1 x 1 tiles (got 3 x -2)");
  EXPECT_EQ(validate(def_of(1025, 4)),
            "tile map is 1025 x 4 tiles; at most 1024 x 1024 are allowed");
  for (double bad : {0.0, -40.0, std::nan(""), std::numeric_limits<double>::infinity(), 1e-9, 1e9})
    EXPECT_EQ(validate(def_of(4, 4, bad)),
              "tile size must be a finite number of units in [0.001, 10000]")
        << bad;
  TileMapDef short_cells = def_of(20, 15);
  short_cells.cells.pop_back();
  EXPECT_EQ(validate(short_cells), "tile map has 299 cells, expected 300 (20 x 15)");
  TileMapDef bad_value = def_of(4, 4);
  bad_value.cells[5] = 7;
  EXPECT_EQ(validate(bad_value), "tile map cell 5 is 7; cells must be 0 (walkable) or 1 (blocked)");
  EXPECT_EQ(error_of(make_tile_map(def_of(0, 0))),
            "tile map must be at least 1 x 1 tiles (got 0 x 0)");
  EXPECT_EQ(error_of(make_tile_map(def_of(2, 2))), "");
}

TEST(TileMap, OutOfBoundsIsBlocked) {
  TileMapDef def = def_of(3, 2);
  def.cells[def.cells.size() - 1] = kBlocked;  // (2, 1)
  const TileMap map(def);
  EXPECT_FALSE(map.blocked(0, 0));
  EXPECT_TRUE(map.blocked(2, 1));
  for (const TileCoord t : {TileCoord{-1, 0}, TileCoord{3, 0}, TileCoord{0, -1}, TileCoord{0, 2},
                            TileCoord{INT32_MIN, INT32_MAX}}) {
    EXPECT_FALSE(map.in_bounds(t));
    EXPECT_TRUE(map.blocked(t));
  }
}

TEST(TileMap, WorldAndTileConversions) {
  const TileMap map(def_of(20, 15, 40.0));
  EXPECT_EQ(map.world_size(), (Vec2{800, 600}));
  EXPECT_EQ(map.tile_at({0, 0}), (TileCoord{0, 0}));
  EXPECT_EQ(map.tile_at({39.999, 40.0}), (TileCoord{0, 1}));  // tiles are half-open
  EXPECT_EQ(map.tile_at({799.9, 599.9}), (TileCoord{19, 14}));
  EXPECT_EQ(map.tile_at({800, 600}), (TileCoord{20, 15}));  // the far edge is off the map
  EXPECT_EQ(map.tile_at({-0.001, 5}), (TileCoord{-1, 0}));
  // Far off the map or NaN: clamped to the nearest out-of-bounds tile, never an overflow.
  EXPECT_EQ(map.tile_at({1e300, -1e300}), (TileCoord{20, -1}));
  EXPECT_EQ(map.tile_at({std::nan(""), std::numeric_limits<double>::infinity()}),
            (TileCoord{-1, 15}));
  EXPECT_EQ(map.tile_centre({3, 2}), (Vec2{140, 100}));
  EXPECT_EQ(map.tile_min({3, 2}), (Vec2{120, 80}));
  EXPECT_EQ(map.tile_at(map.tile_centre({7, 11})), (TileCoord{7, 11}));
  EXPECT_EQ(map.coord(map.index({13, 9})), (TileCoord{13, 9}));
  EXPECT_EQ(map.index({1, 2}), 41u);
}

TEST(TileMap, SetBlockedBumpsTheRevisionOnlyOnChange) {
  TileMap map(def_of(4, 4));
  EXPECT_EQ(map.revision(), 0u);
  map.set_blocked({1, 1}, true);
  EXPECT_TRUE(map.blocked(1, 1));
  EXPECT_EQ(map.revision(), 1u);
  map.set_blocked({1, 1}, true);
  EXPECT_EQ(map.revision(), 1u);
  map.set_blocked({1, 1}, false);
  EXPECT_FALSE(map.blocked(1, 1));
  EXPECT_EQ(map.revision(), 2u);
}

TEST(TileMapText, TheSeedMazeFileIsTheSeedsMapCellForCell) {
  const TileMap from_file = test_util::seed_maze();
  const TileMap from_seed = test_util::seed_map_from_array();
  ASSERT_EQ(from_file.width(), 20);
  ASSERT_EQ(from_file.height(), 15);
  EXPECT_EQ(from_file.tile_size(), 40.0);
  for (std::int32_t y = 0; y < 15; ++y)
    for (std::int32_t x = 0; x < 20; ++x)
      EXPECT_EQ(from_file.blocked(x, y), from_seed.blocked(x, y)) << x << "," << y;
  EXPECT_FALSE(from_file.blocked(1, 1));  // the tutorial's start
  EXPECT_TRUE(from_file.blocked(2, 1));
}

TEST(TileMapText, ParsesCommentsBlankLinesAndCrLf) {
  const auto parsed = parse_tile_map("; a comment\r\n\r\n#.#\r\n...\r\n; another\n", 8.0);
  ASSERT_EQ(error_of(parsed), "");
  const TileMap& map = std::get<TileMap>(parsed);
  EXPECT_EQ(map.width(), 3);
  EXPECT_EQ(map.height(), 2);
  EXPECT_EQ(map.tile_size(), 8.0);
  EXPECT_TRUE(map.blocked(0, 0));
  EXPECT_FALSE(map.blocked(1, 0));
  EXPECT_FALSE(map.blocked(2, 1));
  EXPECT_EQ(to_text(map), "#.#\n...\n");
}

TEST(TileMapText, RoundTripsThroughText) {
  Rng rng(4);
  const TileMap map = test_util::random_map(rng, 17, 9, 0.4);
  const auto again = parse_tile_map(to_text(map), 1.0);
  ASSERT_EQ(error_of(again), "");
  const TileMap& copy = std::get<TileMap>(again);
  ASSERT_EQ(copy.width(), 17);
  ASSERT_EQ(copy.height(), 9);
  for (std::size_t i = 0; i < map.tile_count(); ++i) EXPECT_EQ(copy.cells()[i], map.cells()[i]);
}

TEST(TileMapText, ErrorsNameTheLineAndColumn) {
  EXPECT_EQ(error_of(parse_tile_map("", 40)), "tile map text has no rows");
  EXPECT_EQ(error_of(parse_tile_map("; only a comment\n\n", 40)), "tile map text has no rows");
  EXPECT_EQ(error_of(parse_tile_map("###\n#.\n###\n", 40)),
            "line 2: row has 2 tiles, expected 3 like the first row (line 1)");
  EXPECT_EQ(error_of(parse_tile_map("; map\n#.#\n#x#\n", 40)),
            "line 3, column 2: unexpected character 'x' (use '#' for a blocked tile, '.' for a "
            "walkable one)");
  EXPECT_EQ(error_of(parse_tile_map("#.#\n", 0.0)),
            "tile size must be a finite number of units in [0.001, 10000]");
  EXPECT_EQ(error_of(parse_tile_map(std::string(1025, '.') + "\n", 40)),
            "line 1: tile map is larger than 1024 x 1024 tiles");
  std::string tall;
  for (int i = 0; i < 1025; ++i) tall += "..\n";
  EXPECT_EQ(error_of(parse_tile_map(tall, 40)),
            "line 1025: tile map is larger than 1024 x 1024 tiles");
}

}  // namespace
}  // namespace herd::sim
