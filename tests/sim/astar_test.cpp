// A*: optimal against brute force on many random maps, never through walls or corners,
// deterministic, allocation-free when reused; and string pulling's guarantee.
#include "astar.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <vector>

#include "pathing_test_util.hpp"
#include "tile_collision.hpp"

// Counts every allocation made through operator new in this test binary, so a test can check
// that a stretch of code makes none. Not inlined: GCC would otherwise see malloc's pointer reach
// free through inlined new/delete pairs and warn (-Wmismatched-new-delete) where all is well.
namespace {
std::atomic<long> g_allocations{0};
}  // namespace

[[gnu::noinline]] void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace herd::sim {
namespace {

using test_util::brute_force_costs;
using test_util::kNoPath;

TileMap open_map(std::int32_t w, std::int32_t h) {
  return TileMap(
      TileMapDef{w, h, 1.0, std::vector<std::uint8_t>(static_cast<std::size_t>(w * h), kWalkable)});
}

// The path's moves are legal (adjacent, walkable, no corner cut) and cost what A* says.
void expect_valid_path(const TileMap& map, const std::vector<TileCoord>& path, TileCoord start,
                       TileCoord goal, Neighbourhood n, double cost) {
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path.front(), start);
  EXPECT_EQ(path.back(), goal);
  double sum = 0.0;
  for (std::size_t i = 0; i < path.size(); ++i) {
    ASSERT_FALSE(map.blocked(path[i]));
    if (i == 0) continue;
    const int dx = path[i].x - path[i - 1].x, dy = path[i].y - path[i - 1].y;
    bool legal = false;
    for (int s = 0; s < step_count(n); ++s) {
      if (kGridSteps[s].dx != dx || kGridSteps[s].dy != dy) continue;
      legal = can_step(map, path[i - 1], kGridSteps[s]);
      sum += kGridSteps[s].cost;
    }
    ASSERT_TRUE(legal) << "illegal move at " << i;
  }
  EXPECT_NEAR(sum, cost, 1e-9);
}

TEST(AStar, OpenGroundCosts) {
  const TileMap map = open_map(10, 10);
  PathFinder finder;
  std::vector<TileCoord> path;
  PathResult r = finder.find(map, {0, 0}, {9, 0}, Neighbourhood::eight, path);
  ASSERT_TRUE(r.found());
  EXPECT_DOUBLE_EQ(r.cost, 9.0);
  EXPECT_EQ(path.size(), 10u);
  r = finder.find(map, {0, 0}, {9, 9}, Neighbourhood::eight, path);
  EXPECT_NEAR(r.cost, 9 * std::sqrt(2.0), 1e-12);
  EXPECT_EQ(path.size(), 10u);
  r = finder.find(map, {0, 0}, {9, 4}, Neighbourhood::eight, path);
  EXPECT_NEAR(r.cost, 5 + 4 * std::sqrt(2.0), 1e-12);
  r = finder.find(map, {0, 0}, {9, 9}, Neighbourhood::four, path);
  EXPECT_DOUBLE_EQ(r.cost, 18.0);
  EXPECT_EQ(path.size(), 19u);
  // A straight run on open ground is found by following the heuristic, without a flood.
  r = finder.find(map, {0, 5}, {9, 5}, Neighbourhood::eight, path);
  EXPECT_EQ(r.expanded, 10u);
}

TEST(AStar, NeverCutsACorner) {
  TileMap map = open_map(3, 3);
  map.set_blocked({1, 0}, true);
  PathFinder finder;
  std::vector<TileCoord> path;
  const PathResult r = finder.find(map, {0, 0}, {1, 1}, Neighbourhood::eight, path);
  ASSERT_TRUE(r.found());
  EXPECT_DOUBLE_EQ(r.cost, 2.0);  // down then right, not the diagonal past (1,0)'s corner
  EXPECT_EQ(path, (std::vector<TileCoord>{{0, 0}, {0, 1}, {1, 1}}));
  map.set_blocked({0, 1}, true);  // both sides closed: the diagonal gap is no way through
  EXPECT_EQ(finder.find(map, {0, 0}, {1, 1}, Neighbourhood::eight, path).status,
            PathStatus::unreachable);
  EXPECT_TRUE(path.empty());
}

TEST(AStar, DistinguishesWhyThereIsNoPath) {
  TileMap map = open_map(5, 5);
  map.set_blocked({2, 2}, true);
  for (std::int32_t y = 0; y < 5; ++y) map.set_blocked({3, y}, true);  // a wall cuts off x = 4
  PathFinder finder;
  std::vector<TileCoord> path{{9, 9}};
  const auto status = [&](TileCoord a, TileCoord b) {
    return finder.find(map, a, b, Neighbourhood::eight, path).status;
  };
  EXPECT_EQ(status({-1, 0}, {0, 0}), PathStatus::start_outside);
  EXPECT_EQ(status({0, 0}, {0, 5}), PathStatus::goal_outside);
  EXPECT_EQ(status({2, 2}, {0, 0}), PathStatus::start_blocked);
  EXPECT_EQ(status({0, 0}, {3, 1}), PathStatus::goal_blocked);
  EXPECT_EQ(status({0, 0}, {4, 4}), PathStatus::unreachable);
  EXPECT_TRUE(path.empty());
  EXPECT_EQ(status({1, 1}, {1, 1}), PathStatus::found);
  EXPECT_EQ(path, (std::vector<TileCoord>{{1, 1}}));
  EXPECT_STREQ(to_string(PathStatus::goal_blocked), "goal_blocked");
  EXPECT_STREQ(to_string(PathStatus::unreachable), "unreachable");
}

TEST(AStar, OptimalAgainstBruteForceOnRandomMaps) {
  Rng rng(2024);
  PathFinder finder;
  std::vector<TileCoord> path;
  int found = 0, unreachable = 0;
  for (int m = 0; m < 400; ++m) {
    const auto w = static_cast<std::int32_t>(2 + rng.next_u64() % 11);
    const auto h = static_cast<std::int32_t>(2 + rng.next_u64() % 11);
    const TileMap map = test_util::random_map(rng, w, h, rng.uniform(0.0, 0.45));
    for (const Neighbourhood n : {Neighbourhood::four, Neighbourhood::eight}) {
      for (int q = 0; q < 4; ++q) {
        const TileCoord start = test_util::random_tile(rng, map),
                        goal = test_util::random_tile(rng, map);
        const PathResult r = finder.find(map, start, goal, n, path);
        if (map.blocked(start) || map.blocked(goal)) {
          EXPECT_FALSE(r.found());
          continue;
        }
        const double best = brute_force_costs(map, goal, n)[map.index(start)];
        if (best == kNoPath) {
          ++unreachable;
          ASSERT_EQ(r.status, PathStatus::unreachable);
          ASSERT_TRUE(path.empty());
          continue;
        }
        ++found;
        ASSERT_TRUE(r.found()) << "map " << m;
        ASSERT_NEAR(r.cost, best, 1e-9) << "map " << m;
        expect_valid_path(map, path, start, goal, n, r.cost);
      }
    }
  }
  EXPECT_GT(found, 1000);
  EXPECT_GT(unreachable, 100);
}

TEST(AStar, DeterministicAndIndependentOfEarlierQueries) {
  Rng rng(5);
  const TileMap big = test_util::random_map(rng, 40, 30, 0.3);
  const TileMap small = test_util::random_map(rng, 7, 5, 0.2);
  PathFinder reused;
  std::vector<TileCoord> a, b, scratch;
  for (int q = 0; q < 50; ++q) {
    const TileCoord s = test_util::random_tile(rng, big), g = test_util::random_tile(rng, big);
    reused.find(small, {0, 0}, {6, 4}, Neighbourhood::eight, scratch);  // another map in between
    const PathResult r1 = reused.find(big, s, g, Neighbourhood::eight, a);
    PathFinder fresh;
    const PathResult r2 = fresh.find(big, s, g, Neighbourhood::eight, b);
    EXPECT_EQ(r1.status, r2.status);
    EXPECT_EQ(r1.cost, r2.cost);
    EXPECT_EQ(r1.expanded, r2.expanded);
    EXPECT_EQ(a, b);
  }
}

TEST(AStar, ASearchInSlicesIsTheSameSearchAsOneInOneGo) {
  // The path queue's slices must not change a path: the same expansions, the same answer, and
  // no slice expands more than its budget.
  Rng rng(77);
  const TileMap map = test_util::random_map(rng, 60, 40, 0.3);
  PathFinder whole, sliced;
  std::vector<TileCoord> a, b;
  int multi_slice = 0;
  for (int q = 0; q < 60; ++q) {
    const TileCoord s = test_util::random_tile(rng, map), g = test_util::random_tile(rng, map);
    const PathResult r = whole.find(map, s, g, Neighbourhood::eight, a);
    constexpr std::uint32_t kBudget = 7;
    sliced.begin(map, s, g, Neighbourhood::eight);
    int slices = 0;
    std::uint32_t before = 0;
    for (bool done = false; !done; ++slices) {
      done = sliced.resume(map, kBudget, b);
      ASSERT_LE(sliced.result().expanded - before, kBudget);
      before = sliced.result().expanded;
      ASSERT_LT(slices, 100000);
    }
    multi_slice += slices > 1;
    EXPECT_FALSE(sliced.running());
    EXPECT_EQ(sliced.result().status, r.status);
    EXPECT_EQ(sliced.result().cost, r.cost);
    EXPECT_EQ(sliced.result().expanded, r.expanded);
    EXPECT_EQ(a, b);
  }
  EXPECT_GT(multi_slice, 20);
}

TEST(AStar, RepeatedQueriesDoNotAllocate) {
  Rng rng(8);
  const TileMap map = test_util::random_map(rng, 64, 64, 0.25);
  std::vector<std::pair<TileCoord, TileCoord>> queries;
  for (int q = 0; q < 40; ++q) {
    // Two statements: the order a call's arguments are evaluated in is unspecified (GCC and clang
    // differ), and the queries must not depend on the compiler.
    const TileCoord s = test_util::random_tile(rng, map);
    queries.emplace_back(s, test_util::random_tile(rng, map));
  }
  PathFinder finder;
  std::vector<TileCoord> path;
  int found = 0;
  // Warm up with both neighbourhoods: 4-neighbour searches can need a larger open list.
  for (const Neighbourhood n : {Neighbourhood::eight, Neighbourhood::four})
    for (const auto& [s, g] : queries) found += finder.find(map, s, g, n, path).found();
  ASSERT_GT(found, 20);
  const long before = g_allocations.load();
  for (const Neighbourhood n : {Neighbourhood::eight, Neighbourhood::four})
    for (const auto& [s, g] : queries) finder.find(map, s, g, n, path);
  EXPECT_EQ(g_allocations.load() - before, 0);
}

// ---- string pulling ----

TEST(StringPull, OpenGroundBecomesOneStraightSegment) {
  const TileMap map = open_map(10, 10);
  PathFinder finder;
  std::vector<TileCoord> path;
  ASSERT_TRUE(finder.find(map, {0, 0}, {9, 5}, Neighbourhood::eight, path).found());
  std::vector<Vec2> points, pulled;
  path_points(map, path, points);
  EXPECT_EQ(points.front(), (Vec2{0.5, 0.5}));
  string_pull(map, points, 0.3, pulled);
  EXPECT_EQ(pulled, (std::vector<Vec2>{{0.5, 0.5}, {9.5, 5.5}}));
  string_pull(map, std::vector<Vec2>{}, 0.3, pulled);
  EXPECT_TRUE(pulled.empty());
  string_pull(map, std::vector<Vec2>{{2, 2}}, 0.3, pulled);
  EXPECT_EQ(pulled, (std::vector<Vec2>{{2, 2}}));
}

TEST(StringPull, EverySegmentIsClearForTheDiscOrAnInputSegment) {
  Rng rng(77);
  PathFinder finder;
  std::vector<TileCoord> path;
  std::vector<Vec2> points, pulled;
  int shortened = 0;
  for (int m = 0; m < 150; ++m) {
    const TileMap map = test_util::random_map(rng, 20, 15, 0.25, 2.0);
    const TileCoord s = test_util::random_tile(rng, map), g = test_util::random_tile(rng, map);
    if (!finder.find(map, s, g, Neighbourhood::eight, path).found()) continue;
    path_points(map, path, points);
    // Discs narrower than a tile: every segment is clear, the input's own steps included.
    const double r = rng.uniform(0.0, 0.98);  // tile size 2
    string_pull(map, points, r, pulled);
    ASSERT_EQ(pulled.front(), points.front());
    ASSERT_EQ(pulled.back(), points.back());
    ASSERT_LE(pulled.size(), points.size());
    shortened += pulled.size() < points.size();
    for (std::size_t i = 1; i < pulled.size(); ++i)
      ASSERT_TRUE(clear_segment(map, pulled[i - 1], pulled[i], r)) << "map " << m << " r " << r;
    // Discs wider than the corridors: segments not clear must be the input's own steps.
    const double wide = rng.uniform(1.0, 3.0);
    string_pull(map, points, wide, pulled);
    std::size_t at = 0;  // pulled is a subsequence of points
    for (std::size_t i = 1; i < pulled.size(); ++i) {
      while (points[at] != pulled[i - 1]) ++at;
      if (!clear_segment(map, pulled[i - 1], pulled[i], wide)) {
        ASSERT_EQ(points[at + 1], pulled[i]);
      }
    }
  }
  EXPECT_GT(shortened, 50);
}

}  // namespace
}  // namespace herd::sim
