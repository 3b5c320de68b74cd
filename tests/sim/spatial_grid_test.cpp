// The grid finds exactly what brute force finds, and avoidance through it agrees with brute force.
#include "spatial_grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "avoidance.hpp"
#include "rng.hpp"

namespace herd::sim {
namespace {

TEST(SpatialGrid, QueryFindsEveryPointBruteForceFinds) {
  Rng rng(7);
  for (int world = 0; world < 20; ++world) {
    std::vector<Vec2> pts(300);
    for (Vec2& p : pts) p = {rng.uniform(0, 500), rng.uniform(0, 300)};
    if (world % 5 == 0) pts[1] = pts[0];  // coincident points too
    SpatialGrid grid;
    grid.rebuild(pts, 500, 300, rng.uniform(5, 80));
    for (int q = 0; q < 50; ++q) {
      const Vec2 c{rng.uniform(-20, 520), rng.uniform(-20, 320)};
      const double r = rng.uniform(0, 60);
      std::vector<std::uint32_t> found, expected;
      grid.query(c, r, [&](std::uint32_t i) {
        if (length_squared(pts[i] - c) <= r * r) found.push_back(i);
      });
      for (std::uint32_t i = 0; i < pts.size(); ++i)
        if (length_squared(pts[i] - c) <= r * r) expected.push_back(i);
      std::sort(found.begin(), found.end());
      ASSERT_EQ(found, expected);
    }
  }
}

// After move() (points change, cells do not), a query widened by the farthest move still finds
// every point brute force finds, with the new positions: the collision stage relies on it.
TEST(SpatialGrid, MovedPointsAreFoundByAQueryWidenedByTheFarthestMove) {
  Rng rng(11);
  for (int world = 0; world < 20; ++world) {
    std::vector<Vec2> pts(300);
    for (Vec2& p : pts) p = {rng.uniform(0, 500), rng.uniform(0, 300)};
    SpatialGrid grid;
    grid.rebuild(pts, 500, 300, rng.uniform(5, 40));
    const double reach = rng.uniform(0.5, 30);  // moves of up to a few cells
    double farthest = 0;
    for (std::size_t k = 0; k < grid.size(); ++k) {
      const std::uint32_t i = grid.index(k);
      const Vec2 to = pts[i] + Vec2{rng.uniform(-reach, reach), rng.uniform(-reach, reach)};
      farthest = std::max(farthest, length(to - pts[i]));
      pts[i] = to;
      grid.move(k, to);
    }
    for (int q = 0; q < 50; ++q) {
      const Vec2 c{rng.uniform(-20, 520), rng.uniform(-20, 320)};
      const double r = rng.uniform(0, 20);
      std::vector<std::uint32_t> found, expected;
      grid.query_points(c, r + farthest, [&](std::uint32_t i, Vec2 p, std::uint32_t) {
        EXPECT_EQ(p, pts[i]);
        if (length_squared(p - c) <= r * r) found.push_back(i);
      });
      for (std::uint32_t i = 0; i < pts.size(); ++i)
        if (length_squared(pts[i] - c) <= r * r) expected.push_back(i);
      std::sort(found.begin(), found.end());
      ASSERT_EQ(found, expected) << "world " << world << " query " << q;
    }
  }
}

TEST(SpatialGrid, RunsCoverTheDiscInQueryOrderWithTheRightPositions) {
  Rng rng(8);
  for (int world = 0; world < 20; ++world) {
    std::vector<Vec2> pts(400);
    for (Vec2& p : pts)
      p = {rng.uniform(-10, 510), rng.uniform(-10, 310)};  // some outside the world
    SpatialGrid grid;
    grid.rebuild(
        pts.size(), [&](std::size_t i) { return pts[i]; }, 500, 300, rng.uniform(3, 80));
    ASSERT_EQ(grid.size(), pts.size());
    for (int q = 0; q < 50; ++q) {
      const Vec2 c{rng.uniform(-20, 520), rng.uniform(-20, 320)};
      const double r = q == 0 ? 0.0 : rng.uniform(0, 60);
      std::vector<std::uint32_t> inside, all_query, all_points;
      grid.query_points(c, r, [&](std::uint32_t i, Vec2 p, std::uint32_t slot) {
        ASSERT_EQ(grid.index(slot), i);
        ASSERT_EQ(p, pts[i]);
        all_points.push_back(i);
        if (length_squared(p - c) <= r * r) inside.push_back(i);
      });
      // Everything within the disc, in the order query visits it (query may visit more).
      grid.query(c, r, [&](std::uint32_t i) {
        if (length_squared(pts[i] - c) <= r * r) all_query.push_back(i);
      });
      EXPECT_EQ(inside, all_query);
      std::vector<std::uint32_t> expected;
      for (std::uint32_t i = 0; i < pts.size(); ++i)
        if (length_squared(pts[i] - c) <= r * r) expected.push_back(i);
      std::sort(inside.begin(), inside.end());
      EXPECT_EQ(inside, expected);
      EXPECT_LE(all_points.size(), pts.size());
    }
  }
}

TEST(SpatialGrid, CellSizeForKeepsAboutOneCellPerPoint) {
  EXPECT_EQ(SpatialGrid::cell_size_for(100, 1000, 1000, 5), 100.0);  // sqrt(1e6 / 100)
  EXPECT_EQ(SpatialGrid::cell_size_for(1'000'000, 1000, 1000, 5), 5.0);
  EXPECT_EQ(SpatialGrid::cell_size_for(0, 10, 10, 1), 10.0);
}

TEST(SpatialGrid, HugeWorldsKeepTheCellCountBounded) {
  std::vector<Vec2> pts{{0, 0}, {1e6, 1e6}};
  SpatialGrid grid;
  grid.rebuild(pts, 1e6, 1e6, 0.5);
  EXPECT_LE(static_cast<std::size_t>(grid.cols()) * static_cast<std::size_t>(grid.rows()),
            SpatialGrid::kMaxCells);
  int seen = 0;
  grid.query({1e6, 1e6}, 1, [&](std::uint32_t) { ++seen; });
  EXPECT_EQ(seen, 1);
}

TEST(SpatialGrid, AvoidanceThroughTheGridMatchesBruteForce) {
  // The order of the neighbours differs (cells versus ids), so sums differ in the last bits only.
  Rng rng(11);
  AvoidanceDef def;
  for (int world = 0; world < 20; ++world) {
    std::vector<Neighbour> all;
    std::vector<Vec2> pts;
    for (std::uint32_t i = 0; i < 200; ++i) {
      const Vec2 p{rng.uniform(0, 400), rng.uniform(0, 400)};
      all.push_back(
          {i, false, p, {rng.uniform(-50, 50), rng.uniform(-50, 50)}, rng.uniform(3, 10)});
      pts.push_back(p);
    }
    SpatialGrid grid;
    grid.rebuild(pts, 400, 400, 40);
    for (std::uint32_t i = 0; i < 200; i += 7) {
      const Neighbour& me = all[i];
      const Mover m{me.position, me.velocity, me.radius, {60, -30}};
      std::vector<Neighbour> by_grid, by_brute;
      const double reach = push_cutoff(def, me.radius + 10);
      grid.query(me.position, reach, [&](std::uint32_t j) {
        const double cut = push_cutoff(def, me.radius + all[j].radius);
        if (j != i && length_squared(all[j].position - me.position) < cut * cut)
          by_grid.push_back(all[j]);
      });
      for (std::uint32_t j = 0; j < all.size(); ++j) {
        const double cut = push_cutoff(def, me.radius + all[j].radius);
        if (j != i && length_squared(all[j].position - me.position) < cut * cut)
          by_brute.push_back(all[j]);
      }
      ASSERT_EQ(by_grid.size(), by_brute.size());
      const Vec2 a = avoidance_direction(def, m, by_grid);
      const Vec2 b = avoidance_direction(def, m, by_brute);
      EXPECT_NEAR(a.x, b.x, 1e-9);
      EXPECT_NEAR(a.y, b.y, 1e-9);
    }
  }
}

}  // namespace
}  // namespace herd::sim
