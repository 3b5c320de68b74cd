// The snapshot plan (publish/snapshot_plan.hpp) alone: which parts besides the agents each
// snapshot carries, row by row, against a world changed by commands.
#include "publish/snapshot_plan.hpp"

#include <gtest/gtest.h>

#include "herd/sim/world.hpp"

namespace herd::publish {
namespace {

constexpr double kRate = 10;  // snapshots a second: a refresh every 50 snapshots
constexpr std::uint64_t kPeriod = 50;

TEST(SnapshotPlan, AnUnchangedPartGoesOnlyWhenItsRowRefreshesIt) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  const SnapshotParts first = plan.next(world, 0, kRate);
  EXPECT_FALSE(first.map) << "the welcome carried it";
  EXPECT_TRUE(first.obstacles) << "obstacles refresh always, the first time at once";
  EXPECT_FALSE(first.walls) << "no walls: nothing to refresh";
  EXPECT_FALSE(first.sources);
  const SnapshotParts second = plan.next(world, 1, kRate);
  EXPECT_FALSE(second.obstacles);
  EXPECT_FALSE(plan.next(world, kPeriod - 1, kRate).obstacles);
  EXPECT_TRUE(plan.next(world, kPeriod, kRate).obstacles) << "again after the refresh period";
}

TEST(SnapshotPlan, AChangedPartGoesInTheNextSnapshotAndWallsRefreshWhileThereAreAny) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  plan.next(world, 0, kRate);
  ASSERT_TRUE(world.apply(sim::AddObstacle{{100, 100}, 10}).ok());
  EXPECT_TRUE(plan.next(world, 1, kRate).obstacles) << "changed: sent before its period";
  ASSERT_TRUE(world.apply(sim::AddWall{{{10, 10}, {200, 10}}}).ok());
  const SnapshotParts walled = plan.next(world, 2, kRate);
  EXPECT_TRUE(walled.walls);
  EXPECT_FALSE(walled.obstacles);
  EXPECT_FALSE(plan.next(world, 3, kRate).walls);
  EXPECT_TRUE(plan.next(world, 2 + kPeriod, kRate).walls) << "while there are any";
}

TEST(SnapshotPlan, ANewWorldSendsEveryPartItsWelcomeDoesNotCarry) {
  sim::World world(sim::WorldDef{});
  SnapshotPlan plan(world);
  plan.next(world, 0, kRate);
  sim::World next(sim::WorldDef{});
  plan.new_world(next);
  const SnapshotParts parts = plan.next(next, 1, kRate);
  EXPECT_FALSE(parts.map) << "in the new world's welcome";
  EXPECT_FALSE(parts.obstacles) << "in the new world's welcome, and not due";
  EXPECT_TRUE(parts.measurements);
  EXPECT_TRUE(parts.sources);
  EXPECT_TRUE(parts.walls);
}

// Who takes each part: a team's fogged view is sent the map, obstacles and walls, not the
// measurements, sources or exits, whose counts count agents it may not see.
TEST(SnapshotPlan, ATeamsViewLeavesOutWhatCountsAgentsItMayNotSee) {
  SnapshotParts all;
  all.map = all.obstacles = all.measurements = all.sources = all.walls = true;
  for (bool SnapshotParts::*part :
       {&SnapshotParts::map, &SnapshotParts::obstacles, &SnapshotParts::measurements,
        &SnapshotParts::sources, &SnapshotParts::walls})
    EXPECT_TRUE(SnapshotPlan::carries(all, part, false)) << "the whole world's view takes all";
  EXPECT_TRUE(SnapshotPlan::carries(all, &SnapshotParts::obstacles, true));
  EXPECT_TRUE(SnapshotPlan::carries(all, &SnapshotParts::walls, true));
  EXPECT_FALSE(SnapshotPlan::carries(all, &SnapshotParts::measurements, true));
  EXPECT_FALSE(SnapshotPlan::carries(all, &SnapshotParts::sources, true));
  SnapshotParts none;
  none.obstacles = false;
  EXPECT_FALSE(SnapshotPlan::carries(none, &SnapshotParts::obstacles, false)) << "not due";
}

}  // namespace
}  // namespace herd::publish
