// Flow fields: distances equal A*'s costs, directions always lead to the goal, and many
// kinematic followers on one goal all arrive without ending inside a wall.
#include "flow_field.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "astar.hpp"
#include "pathing_test_util.hpp"
#include "tile_collision.hpp"

namespace herd::sim {
namespace {

using test_util::brute_force_costs;
using test_util::kNoPath;

TEST(FlowField, DistancesEqualAStarCostsOnRandomMaps) {
  Rng rng(31);
  PathFinder finder;
  std::vector<TileCoord> path;
  FlowField field;
  int compared = 0;
  for (int m = 0; m < 60; ++m) {
    const TileMap map = test_util::random_map(rng, 14, 10, rng.uniform(0.05, 0.4));
    const TileCoord goal = test_util::random_tile(rng, map);
    for (const Neighbourhood n : {Neighbourhood::four, Neighbourhood::eight}) {
      const PathStatus status = field.build(map, goal, n);
      if (map.blocked(goal)) {
        EXPECT_EQ(status, PathStatus::goal_blocked);
        EXPECT_FALSE(field.built());
        continue;
      }
      ASSERT_EQ(status, PathStatus::found);
      const std::vector<double> brute = brute_force_costs(map, goal, n);
      for (std::size_t i = 0; i < map.tile_count(); ++i) {
        const TileCoord t = map.coord(i);
        const PathResult r = finder.find(map, t, goal, n, path);
        if (!r.found()) {
          ASSERT_FALSE(field.reachable(t));
          ASSERT_EQ(field.distance(t), FlowField::kUnreachable);
          ASSERT_EQ(brute[i], kNoPath);
          continue;
        }
        ASSERT_TRUE(field.reachable(t));
        ASSERT_NEAR(field.distance(t), r.cost, 1e-9)
            << "map " << m << " tile " << t.x << "," << t.y;
        ASSERT_NEAR(field.distance(t), brute[i], 1e-9);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 5000);
}

// A field built in slices of any size is the field built at once, no slice does more work than
// it was given, and the same total work stops at the same point.
TEST(FlowField, ASlicedBuildIsTheWholeBuildAndKeepsToEachSlice) {
  Rng rng(33);
  FlowField whole, sliced, replayed;
  for (int m = 0; m < 30; ++m) {
    const TileMap map = test_util::random_map(rng, 20, 15, rng.uniform(0.05, 0.4));
    const TileCoord goal = test_util::random_tile(rng, map);
    const Neighbourhood n = m % 2 ? Neighbourhood::four : Neighbourhood::eight;
    const PathStatus status = whole.build(map, goal, n);
    ASSERT_EQ(sliced.begin(map, goal, n), status);
    const std::uint64_t slice = 1 + m % 17;
    int slices = 0;
    while (true) {
      const std::uint64_t before = sliced.work();
      const bool done = sliced.resume(map, slice);
      ASSERT_LE(sliced.work() - before, slice);
      ++slices;
      if (done) break;
      if (slices == 7) {
        replayed.begin(map, goal, n);
        EXPECT_FALSE(replayed.resume(map, sliced.work()));
        EXPECT_EQ(replayed.work(), sliced.work());
      }
    }
    EXPECT_TRUE(sliced.complete());
    EXPECT_EQ(sliced.built(), whole.built());
    if (!map.blocked(goal)) EXPECT_GT(slices, 1) << "a whole map is more than one slice";
    for (std::size_t i = 0; i < map.tile_count(); ++i) {
      const TileCoord t = map.coord(i);
      ASSERT_EQ(sliced.distance(t), whole.distance(t));
      ASSERT_EQ(sliced.step(t), whole.step(t));
    }
  }
}

TEST(FlowField, DirectionsAlwaysLeadToTheGoalWithoutCuttingCorners) {
  Rng rng(32);
  FlowField field;
  for (int m = 0; m < 60; ++m) {
    const TileMap map = test_util::random_map(rng, 20, 16, 0.3);
    const TileCoord goal = test_util::random_tile(rng, map);
    if (map.blocked(goal)) continue;
    const Neighbourhood n = m % 2 ? Neighbourhood::four : Neighbourhood::eight;
    ASSERT_EQ(field.build(map, goal, n), PathStatus::found);
    EXPECT_EQ(field.next_tile(goal), std::nullopt);
    EXPECT_EQ(field.tile_direction(goal), (Vec2{0, 0}));
    for (std::size_t i = 0; i < map.tile_count(); ++i) {
      TileCoord t = map.coord(i);
      if (!field.reachable(t)) {
        EXPECT_EQ(field.step(t), FlowField::kNoStep);
        continue;
      }
      // Follow the field: every move is legal and strictly nearer; the goal comes within as
      // many moves as there are tiles.
      for (std::size_t moves = 0; !(t == goal); ++moves) {
        ASSERT_LT(moves, map.tile_count());
        const std::uint8_t s = field.step(t);
        ASSERT_LT(s, step_count(n));
        ASSERT_TRUE(can_step(map, t, kGridSteps[s]));
        const TileCoord next = *field.next_tile(t);
        ASSERT_NEAR(field.distance(t), kGridSteps[s].cost + field.distance(next), 1e-9);
        ASSERT_LT(field.distance(next), field.distance(t));
        EXPECT_NEAR(length(field.tile_direction(t)), 1.0, 1e-12);
        t = next;
      }
    }
  }
}

TEST(FlowField, UnbuildableGoalsAndDegenerateSamples) {
  TileMap map = test_util::seed_maze();
  FlowField field;
  EXPECT_EQ(field.sample({60, 60}), (Vec2{0, 0}));  // never built
  EXPECT_EQ(field.build(map, {0, 0}, Neighbourhood::eight), PathStatus::goal_blocked);
  EXPECT_EQ(field.build(map, {20, 0}, Neighbourhood::eight), PathStatus::goal_outside);
  EXPECT_FALSE(field.reachable({1, 1}));
  EXPECT_EQ(field.sample({60, 60}), (Vec2{0, 0}));
  ASSERT_EQ(field.build(map, {9, 9}, Neighbourhood::eight), PathStatus::found);
  EXPECT_NEAR(length(field.sample({60, 60})), 1.0, 1e-12);
  EXPECT_EQ(field.sample({2, 2}), (Vec2{0, 0}));     // on a wall tile
  EXPECT_EQ(field.sample({-60, 60}), (Vec2{0, 0}));  // off the map
  EXPECT_EQ(field.sample({NAN, 60}), (Vec2{0, 0}));
  EXPECT_EQ(field.sample(map.tile_centre({9, 9})), (Vec2{0, 0}));  // on the goal's centre
  const Vec2 in_goal = field.sample({9 * 40 + 5, 9 * 40 + 20});    // inside the goal tile
  EXPECT_NEAR(in_goal.x, 1.0, 1e-12);
  EXPECT_NEAR(in_goal.y, 0.0, 1e-12);
  EXPECT_EQ(field.distance({-5, 3}), FlowField::kUnreachable);
  EXPECT_EQ(field.step({99, 3}), FlowField::kNoStep);
}

TEST(FlowField, KnowsWhenTheMapChangedAndRebuildsInPlace) {
  TileMap map = test_util::seed_maze();
  FlowField field;
  ASSERT_EQ(field.build(map, {1, 1}, Neighbourhood::four), PathStatus::found);
  EXPECT_EQ(field.map_revision(), map.revision());
  EXPECT_NEAR(field.distance({18, 13}), 31.0, 1e-12);  // the walker takes 41 moves
  const std::size_t bytes = field.memory_bytes();
  EXPECT_GE(bytes, 300u * 9u);
  map.set_blocked({16, 13}, true);  // closes the shortest way: around by the right side
  EXPECT_NE(field.map_revision(), map.revision());
  ASSERT_EQ(field.build(map, {1, 1}, Neighbourhood::four), PathStatus::found);
  EXPECT_EQ(field.map_revision(), map.revision());
  EXPECT_EQ(field.memory_bytes(), bytes);  // same buffers
  EXPECT_GT(field.distance({18, 13}), 31.0);
  // Same map, same goal: the same field, bit for bit.
  FlowField again;
  again.build(map, {1, 1}, Neighbourhood::four);
  for (std::size_t i = 0; i < map.tile_count(); ++i) {
    EXPECT_EQ(again.distance(map.coord(i)), field.distance(map.coord(i)));
    EXPECT_EQ(again.step(map.coord(i)), field.step(map.coord(i)));
  }
}

// Kinematic followers: each tick, move along the sampled direction at full speed, then resolve
// circle-versus-tile collisions. Every follower reaches the goal tile; none ever ends a tick
// overlapping a wall.
void run_followers(const TileMap& map, TileCoord goal, Neighbourhood n, double radius,
                   int followers, Rng& rng) {
  FlowField field;
  ASSERT_EQ(field.build(map, goal, n), PathStatus::found);
  const double s = map.tile_size();
  const double speed = 3.0 * s;  // tiles per second
  const double dt = 1.0 / 30.0;  // a tenth of a tile per tick
  std::vector<Vec2> agents;
  while (static_cast<int>(agents.size()) < followers) {
    const TileCoord t = test_util::random_tile(rng, map);
    if (!field.reachable(t)) continue;
    const Vec2 c = map.tile_centre(t);
    agents.push_back(c + Vec2{rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)} * (s * 0.5 - radius));
  }
  const Vec2 goal_centre = map.tile_centre(goal);
  std::vector<int> arrived_at(agents.size(), -1);
  const int max_ticks = static_cast<int>(map.tile_count()) * 30;
  for (int tick = 0; tick < max_ticks; ++tick) {
    bool all = true;
    for (std::size_t i = 0; i < agents.size(); ++i) {
      if (arrived_at[i] >= 0) continue;
      Vec2& p = agents[i];
      const Vec2 to_goal = goal_centre - p;
      if (map.tile_at(p) == goal && length(to_goal) <= speed * dt) {
        p = goal_centre;
        arrived_at[i] = tick;
        continue;
      }
      all = false;
      p += field.sample(p) * (speed * dt);
      p += push_out(map, p, radius);
      ASSERT_LE(penetration(map, p, radius), 1e-9) << "follower " << i << " tick " << tick;
      ASSERT_TRUE(field.reachable(map.tile_at(p)))
          << "follower " << i << " left the reachable area";
    }
    if (all) break;
  }
  for (std::size_t i = 0; i < agents.size(); ++i)
    EXPECT_GE(arrived_at[i], 0) << "follower " << i << " never arrived";
}

TEST(FlowFieldFollowers, ManyFollowersOnTheSeedMazeAllArrive) {
  Rng rng(41);
  const TileMap map = test_util::seed_maze();
  run_followers(map, {9, 9}, Neighbourhood::eight, 12.0, 200, rng);
  run_followers(map, {18, 13}, Neighbourhood::four, 16.0, 100, rng);
}

TEST(FlowFieldFollowers, ManyFollowersOnRandomMapsAllArrive) {
  Rng rng(42);
  for (int m = 0; m < 8; ++m) {
    const TileMap map = test_util::random_map(rng, 32, 24, 0.25, 10.0);
    TileCoord goal = test_util::random_tile(rng, map);
    while (map.blocked(goal)) goal = test_util::random_tile(rng, map);
    run_followers(map, goal, m % 2 ? Neighbourhood::four : Neighbourhood::eight,
                  rng.uniform(1.0, 4.5), 60, rng);
  }
}

}  // namespace
}  // namespace herd::sim
