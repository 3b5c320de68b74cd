// Line of sight and circles versus tiles: exact cases (edges, corners, seams, degenerate
// positions) and properties checked against brute force on random maps.
#include "tile_collision.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "pathing_test_util.hpp"

namespace herd::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A w x h map of 10-unit tiles with the listed tiles blocked.
TileMap map_with(std::int32_t w, std::int32_t h, std::initializer_list<TileCoord> blocked) {
  TileMap map(TileMapDef{w, h, 10.0,
                         std::vector<std::uint8_t>(static_cast<std::size_t>(w * h), kWalkable)});
  for (TileCoord t : blocked) map.set_blocked(t, true);
  return map;
}

bool finite(Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

void expect_vec_near(Vec2 got, Vec2 want, double tol = 1e-12) {
  EXPECT_NEAR(got.x, want.x, tol);
  EXPECT_NEAR(got.y, want.y, tol);
}

// ---- brute-force references for the random properties ----

// Distance from p to the blocked region, the outside of the map included.
double distance_to_blocked(const TileMap& map, Vec2 p) {
  const Vec2 size = map.world_size();
  double best = std::min({p.x, p.y, size.x - p.x, size.y - p.y});
  const double s = map.tile_size();
  for (std::int32_t y = 0; y < map.height(); ++y) {
    for (std::int32_t x = 0; x < map.width(); ++x) {
      if (!map.blocked(x, y)) continue;
      const double dx = std::max({x * s - p.x, 0.0, p.x - (x + 1) * s});
      const double dy = std::max({y * s - p.y, 0.0, p.y - (y + 1) * s});
      best = std::min(best, std::sqrt(dx * dx + dy * dy));
    }
  }
  return best;
}

// Does the segment share a point with the closed square of some blocked tile (or leave the map)?
bool segment_touches_blocked(const TileMap& map, Vec2 a, Vec2 b) {
  const double s = map.tile_size();
  for (std::int32_t y = -1; y <= map.height(); ++y) {
    for (std::int32_t x = -1; x <= map.width(); ++x) {
      if (!map.blocked(x, y)) continue;
      double t0 = 0, t1 = 1;
      const double from[2] = {a.x, a.y}, d[2] = {b.x - a.x, b.y - a.y};
      const double lo[2] = {x * s, y * s}, hi[2] = {(x + 1) * s, (y + 1) * s};
      bool hit = true;
      for (int k = 0; k < 2 && hit; ++k) {
        if (d[k] == 0) {
          hit = from[k] >= lo[k] && from[k] <= hi[k];
          continue;
        }
        double u0 = (lo[k] - from[k]) / d[k], u1 = (hi[k] - from[k]) / d[k];
        if (u0 > u1) std::swap(u0, u1);
        t0 = std::max(t0, u0);
        t1 = std::min(t1, u1);
        hit = t0 <= t1;
      }
      if (hit) return true;
    }
  }
  return false;
}

Vec2 random_point(Rng& rng, const TileMap& map) {
  const Vec2 size = map.world_size();
  return {rng.uniform(0.0, size.x), rng.uniform(0.0, size.y)};
}

// ---- line of sight ----

TEST(LineOfSight, OpenGroundAndWalls) {
  const TileMap map = map_with(5, 5, {{2, 2}});
  EXPECT_TRUE(line_of_sight(map, {5, 5}, {45, 5}));
  EXPECT_FALSE(line_of_sight(map, {5, 5}, {45, 45}));  // through (2,2)'s centre
  EXPECT_FALSE(line_of_sight(map, {5, 25}, {45, 25}));
  EXPECT_TRUE(line_of_sight(map, {5, 15}, {45, 15}));
  EXPECT_TRUE(line_of_sight(map, {5, 5}, {5, 5}));
  EXPECT_FALSE(line_of_sight(map, {25, 25}, {25, 25}));  // inside a wall
  EXPECT_TRUE(line_of_sight(map, {5, 5}, {45, 15}));     // above (2,2), which starts at y = 20
  EXPECT_FALSE(line_of_sight(map, {5, 5}, {45, 38}));    // enters (2,2) at x = 23.2
}

TEST(LineOfSight, NoSqueezingThroughADiagonalGap) {
  // Both tiles beside the corner at (10, 10) blocked: the diagonal through it is closed...
  EXPECT_FALSE(line_of_sight(map_with(3, 3, {{1, 0}, {0, 1}}), {5, 5}, {15, 15}));
  // ...and with one of them blocked too, as A* refuses that corner cut.
  EXPECT_FALSE(line_of_sight(map_with(3, 3, {{1, 0}}), {5, 5}, {15, 15}));
  EXPECT_FALSE(line_of_sight(map_with(3, 3, {{0, 1}}), {15, 15}, {5, 5}));
  EXPECT_TRUE(line_of_sight(map_with(3, 3, {{2, 0}}), {5, 5}, {15, 15}));
  // Missing the corner by a visible margin is an ordinary crossing through the open side.
  EXPECT_TRUE(line_of_sight(map_with(3, 3, {{1, 0}}), {5, 5}, {15, 16}));
  EXPECT_FALSE(line_of_sight(map_with(3, 3, {{1, 0}}), {5, 5}, {16, 15}));
}

TEST(LineOfSight, OffTheMapOrNotFiniteIsBlocked) {
  const TileMap map = map_with(4, 4, {});
  EXPECT_FALSE(line_of_sight(map, {-1, 5}, {5, 5}));
  EXPECT_FALSE(line_of_sight(map, {5, 5}, {40, 5}));  // x = 40 is the first column off the map
  EXPECT_TRUE(line_of_sight(map, {5, 5}, {39.999, 5}));
  EXPECT_FALSE(line_of_sight(map, {kNaN, 5}, {5, 5}));
  EXPECT_FALSE(line_of_sight(map, {5, 5}, {kInf, 5}));
}

TEST(LineOfSight, AgreesWithBruteForceOnRandomMaps) {
  Rng rng(11);
  int clear = 0, blocked = 0;
  for (int m = 0; m < 40; ++m) {
    const TileMap map = test_util::random_map(rng, 12, 9, 0.2);
    for (int q = 0; q < 200; ++q) {
      const Vec2 a = random_point(rng, map), b = random_point(rng, map);
      const bool los = line_of_sight(map, a, b);
      if (los) {
        ++clear;
        // Every point of the segment lies in a walkable tile.
        for (int i = 0; i <= 1000; ++i)
          ASSERT_FALSE(map.blocked(map.tile_at(a + (b - a) * (i / 1000.0))));
      } else {
        ++blocked;
        ASSERT_TRUE(segment_touches_blocked(map, a, b));
      }
    }
  }
  EXPECT_GT(clear, 500);  // both outcomes well exercised
  EXPECT_GT(blocked, 500);
}

// ---- swept discs ----

TEST(ClearSegment, CorridorFitsDiscsNarrowerThanItself) {
  // Row 1 is a corridor 10 units high between two walls.
  const TileMap map = map_with(
      10, 3, {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}, {8, 0}, {9, 0},
              {0, 2}, {1, 2}, {2, 2}, {3, 2}, {4, 2}, {5, 2}, {6, 2}, {7, 2}, {8, 2}, {9, 2}});
  EXPECT_TRUE(clear_segment(map, {5, 15}, {95, 15}, 4.9));
  EXPECT_FALSE(clear_segment(map, {5, 15}, {95, 15}, 5.0));  // touching a wall counts
  EXPECT_FALSE(clear_segment(map, {5, 15}, {95, 15}, 5.1));
  EXPECT_FALSE(clear_segment(map, {5, 14}, {95, 16}, 4.9));
}

TEST(ClearSegment, PassingACornerAtAGivenDistance) {
  // Tile (2,2) is [20,30]^2; the segment on x + y = 70 passes its corner (30,30) at 10/sqrt(2)
  // and stays 20 units from the map's edges.
  const TileMap map = map_with(8, 8, {{2, 2}});
  const double gap = 10.0 / std::sqrt(2.0);
  EXPECT_TRUE(clear_segment(map, {20, 50}, {50, 20}, gap - 1e-9));
  EXPECT_FALSE(clear_segment(map, {20, 50}, {50, 20}, gap + 1e-9));
  EXPECT_TRUE(clear_segment(map, {20, 50}, {50, 20}, 0.0));
}

TEST(ClearSegment, DegenerateInputs) {
  const TileMap map = map_with(5, 5, {{2, 2}});
  EXPECT_EQ(clear_segment(map, {5, 5}, {45, 5}, 0.0), line_of_sight(map, {5, 5}, {45, 5}));
  EXPECT_EQ(clear_segment(map, {5, 25}, {45, 25}, 0.0), line_of_sight(map, {5, 25}, {45, 25}));
  EXPECT_TRUE(clear_segment(map, {5, 5}, {5, 5}, 4.9));   // a point: the disc at rest
  EXPECT_FALSE(clear_segment(map, {5, 5}, {5, 5}, 5.0));  // touching the map's edge
  EXPECT_FALSE(clear_segment(map, {5, 5}, {45, 5}, kNaN));
  EXPECT_FALSE(clear_segment(map, {5, 5}, {kNaN, 5}, 1.0));
  EXPECT_FALSE(clear_segment(map, {-5, 5}, {45, 5}, 1.0));
  EXPECT_FALSE(clear_segment(map, {5, 5}, {45, 5}, kInf));
}

TEST(ClearSegment, AgreesWithBruteForceOnRandomMaps) {
  Rng rng(12);
  int clear = 0, blocked = 0;
  for (int m = 0; m < 20; ++m) {
    const TileMap map = test_util::random_map(rng, 10, 8, 0.15);
    for (int q = 0; q < 100; ++q) {
      const Vec2 a = random_point(rng, map), b = random_point(rng, map);
      const double r = rng.uniform(0.02, 0.6);
      constexpr int kSamples = 250;
      double nearest = kInf;
      for (int i = 0; i <= kSamples; ++i)
        nearest = std::min(
            nearest, distance_to_blocked(map, a + (b - a) * (static_cast<double>(i) / kSamples)));
      if (clear_segment(map, a, b, r)) {
        ++clear;
        ASSERT_GT(nearest, r);
      } else {
        ++blocked;
        // Sampled points are at most half a sample spacing from the nearest point of the segment.
        ASSERT_LE(nearest, r + 0.5 * length(b - a) / kSamples + 1e-12);
      }
    }
  }
  EXPECT_GT(clear, 150);
  EXPECT_GT(blocked, 150);
}

// ---- circles versus tiles ----

TEST(PushOut, FlatWallPushesAlongItsNormalEvenAtTheSeams) {
  // Row 3 is a wall, its top face at y = 30, made of five tiles with seams at x = 10, 20, ...
  const TileMap map = map_with(5, 5, {{0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 3}});
  for (double x : {15.0, 19.99, 20.0, 20.01, 25.0, 30.0}) {
    const Vec2 push = push_out(map, {x, 27}, 5);
    EXPECT_EQ(push.x, 0.0) << x;  // no sideways ghost push from a tile corner at a seam
    EXPECT_NEAR(push.y, -2.0, 1e-12) << x;
  }
  EXPECT_EQ(push_out(map, {25, 25}, 5), (Vec2{0, 0}));  // touching is not overlapping
  EXPECT_EQ(penetration(map, {25, 25}, 5), 0.0);
  EXPECT_NEAR(penetration(map, {25, 27}, 5), 2.0, 1e-12);
}

TEST(PushOut, ConvexCornerPushesAwayFromTheCornerPoint) {
  const TileMap map = map_with(5, 5, {{2, 2}});         // [20,30]^2
  EXPECT_EQ(push_out(map, {33, 34}, 5), (Vec2{0, 0}));  // 3-4-5: touching the corner
  expect_vec_near(push_out(map, {33, 34}, 6), {0.6, 0.8});
  const Vec2 diag = push_out(map, {17, 16}, 6);  // offset (-3,-4) from (20,20): dist 5, depth 1
  expect_vec_near(diag, {-0.6, -0.8});
}

TEST(PushOut, ConcaveCornerResolvesBothWalls) {
  // Tile (1,1) is a pocket with walls on its right (2,1) and below (1,2), and (2,2) behind.
  const TileMap map = map_with(5, 5, {{2, 1}, {1, 2}, {2, 2}});
  expect_vec_near(push_out(map, {17, 17}, 5), {-2, -2});
  expect_vec_near(push_out(map, {17, 12}, 5), {-2, 0});
  EXPECT_EQ(penetration(map, Vec2{17, 17} + push_out(map, {17, 17}, 5), 5), 0.0);
}

TEST(PushOut, CentreExactlyOnAnEdgeOrACorner) {
  const TileMap map = map_with(5, 5, {{2, 2}});          // [20,30]^2
  expect_vec_near(push_out(map, {25, 20}, 3), {0, -3});  // on the top face
  expect_vec_near(push_out(map, {30, 25}, 3), {3, 0});   // on the right face
  expect_vec_near(push_out(map, {25, 30}, 3), {0, 3});   // on the bottom face
  const Vec2 corner = push_out(map, {20, 20}, 3);        // on the corner: out by exactly r
  EXPECT_TRUE(finite(corner));
  EXPECT_NEAR(length(corner), 3.0, 1e-12);
  EXPECT_EQ(penetration(map, Vec2{20, 20} + corner, 3), 0.0);
  const Vec2 zero_r = push_out(map, {20, 20}, 0.0);  // a point on the boundary overlaps nothing
  EXPECT_TRUE(finite(zero_r));
}

TEST(PushOut, CentreInsideAWallLeavesThroughTheNearestOpenFace) {
  const TileMap map = map_with(5, 5, {{2, 2}});
  expect_vec_near(push_out(map, {23, 26}, 2), {-5, 0});  // left face 3 away, bottom 4, top 6
  expect_vec_near(push_out(map, {25, 25}, 1), {-6, 0});  // all four at 5: left first
  // Walled in: (5,5) in the middle of a 3x3 block heads for the nearest walkable tile, 17 units
  // away on all four sides (the minimum); ties go to the first in ring order, the top row.
  const TileMap block =
      map_with(10, 10, {{4, 4}, {5, 4}, {6, 4}, {4, 5}, {5, 5}, {6, 5}, {4, 6}, {5, 6}, {6, 6}});
  expect_vec_near(push_out(block, {55, 55}, 2), {0, -17});
  // Walled in by walls and the map's edge: it heads for the nearest walkable tile, (2,0).
  const TileMap nook = map_with(5, 5, {{3, 0}, {4, 0}, {3, 1}, {4, 1}});
  expect_vec_near(push_out(nook, {48, 1}, 2), {-20, 1});
  // A face towards a blocked neighbour is not an exit even if it is the nearest.
  const TileMap pair = map_with(5, 5, {{2, 2}, {3, 2}});
  expect_vec_near(push_out(pair, {29, 25}, 1), {0, -6});
}

TEST(PushOut, CircleLargerThanATile) {
  const TileMap map = map_with(10, 10, {{5, 5}});  // [50,60]^2
  expect_vec_near(push_out(map, {55, 40}, 15), {0, -5});
  const Vec2 push = push_out(map, {62, 40}, 15);  // corner (60,50), offset (2,-10)
  const double dist = std::sqrt(104.0);
  expect_vec_near(push, Vec2{2, -10} * ((15 - dist) / dist));
  EXPECT_NEAR(penetration(map, Vec2{62, 40} + push, 15), 0.0, 1e-12);
}

TEST(PushOut, OffTheMapAndNonFiniteInputs) {
  const TileMap map = map_with(5, 5, {});
  expect_vec_near(push_out(map, {-5, 25}, 3), {8, 0});  // clamped onto the edge, then out by r
  expect_vec_near(push_out(map, {25, 1e300}, 3), {0, 47 - 1e300}, 1e290);
  EXPECT_TRUE(finite(push_out(map, {1e300, -1e300}, 3)));
  EXPECT_EQ(push_out(map, {kNaN, 5}, 3), (Vec2{0, 0}));
  EXPECT_EQ(push_out(map, {5, 5}, kInf), (Vec2{0, 0}));
  EXPECT_EQ(push_out(map, {5, 5}, -1), (Vec2{0, 0}));
  EXPECT_EQ(penetration(map, {kNaN, 5}, 3), 0.0);
  EXPECT_NEAR(penetration(map, {-5, 25}, 3), 8.0, 1e-12);
  // A radius bigger than the map is capped: the result is finite, though nothing can fit.
  EXPECT_TRUE(finite(push_out(map, {25, 25}, 1e308)));
}

TEST(PushOut, ResolvesRandomOverlapsWithoutNaN) {
  // Discs narrower than a tile fit in any walkable tile; from anywhere on random maps the push
  // must leave them touching nothing, and never be longer than the way to the nearest free spot
  // that brute force finds on a fine lattice (plus the lattice's spacing).
  Rng rng(13);
  int pushed = 0;
  for (int m = 0; m < 40; ++m) {
    const TileMap map = test_util::random_map(rng, 8, 8, 0.25);
    for (int q = 0; q < 100; ++q) {
      const Vec2 c = random_point(rng, map);
      const double r = rng.uniform(0.05, 0.45);
      const Vec2 push = push_out(map, c, r);
      ASSERT_TRUE(finite(push));
      ASSERT_LE(penetration(map, c + push, r), 1e-9) << "map " << m << " query " << q;
      if (push == Vec2{0, 0}) {
        ASSERT_GE(distance_to_blocked(map, c), r - 1e-12);
        continue;
      }
      ++pushed;
    }
  }
  EXPECT_GT(pushed, 1000);
}

}  // namespace
}  // namespace herd::sim
