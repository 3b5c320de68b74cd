// The obstacle index: every obstacle within reach is visited, whatever the mix of sizes, and one
// large obstacle does not make a small agent's query visit the whole crowd of small ones.
#include "obstacle_index.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "rng.hpp"

namespace herd::sim {
namespace {

std::vector<Obstacle> random_obstacles(Rng& rng, int n, double min_r, double max_r) {
  std::vector<Obstacle> out;
  for (int k = 0; k < n; ++k)
    out.push_back({static_cast<ObstacleId>(k + 1),
                   {rng.uniform(0.0, 800.0), rng.uniform(0.0, 600.0)},
                   rng.uniform(min_r, max_r)});
  return out;
}

TEST(ObstacleIndex, VisitsEveryObstacleWithinReachOnce) {
  Rng rng(7);
  ObstacleIndex index;
  for (int round = 0; round < 20; ++round) {
    std::vector<Obstacle> obstacles = random_obstacles(rng, 300, 0.1, 2.0);
    for (int big = 0; big < round % 4; ++big)
      obstacles.push_back(
          {900, {rng.uniform(0.0, 800.0), rng.uniform(0.0, 600.0)}, rng.uniform(10.0, 400.0)});
    index.rebuild(obstacles, 800, 600);
    for (int q = 0; q < 50; ++q) {
      const Vec2 at{rng.uniform(-10.0, 810.0), rng.uniform(-10.0, 610.0)};
      const double base = rng.uniform(0.0, 30.0);
      std::multiset<std::uint32_t> seen;
      index.query_within(at, base, [&](std::uint32_t k) { seen.insert(k); });
      for (std::uint32_t k = 0; k < obstacles.size(); ++k) {
        const bool within = length(obstacles[k].position - at) <= base + obstacles[k].radius;
        if (within) ASSERT_EQ(seen.count(k), 1u) << "round " << round << " obstacle " << k;
        ASSERT_LE(seen.count(k), 1u);
      }
    }
  }
}

// 8,669 obstacles of radius 0.5 and one of radius 300: a query for a small agent among the small
// ones visits tens of candidates, not the thousands a grid with cells for radius 300 holds near it.
TEST(ObstacleIndex, OneLargeObstacleDoesNotWidenSmallQueries) {
  Rng rng(8);
  std::vector<Obstacle> obstacles = random_obstacles(rng, 8669, 0.5, 0.5);
  ObstacleIndex index;
  index.rebuild(obstacles, 800, 600);
  EXPECT_EQ(index.classes(), 1u);
  const auto visits = [&](Vec2 at) {
    std::size_t n = 0;
    index.query_within(at, 2.0, [&](std::uint32_t) { ++n; });
    return n;
  };
  std::size_t before = 0;
  for (int q = 0; q < 100; ++q) before += visits({8.0 * q, 3.0 * q});
  obstacles.push_back({9000, {400, 300}, 300});
  index.rebuild(obstacles, 800, 600);
  EXPECT_EQ(index.classes(), 2u);
  std::size_t after = 0;
  for (int q = 0; q < 100; ++q) after += visits({8.0 * q, 3.0 * q});
  EXPECT_LE(after, before + 100) << "at most the large one more per query";
  EXPECT_LT(after, 100u * 60) << "tens of candidates a query, not thousands";
}

}  // namespace
}  // namespace herd::sim
