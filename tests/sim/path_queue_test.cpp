// The world's path queue: A* requests served with a fixed budget of tile expansions per tick, so
// a set_tiles that replans every agent cannot stretch a tick; agents say pending meanwhile, every
// one gets its path, and a checkpoint taken mid-queue goes on bit for bit.
#include <gtest/gtest.h>

#include <variant>

#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

constexpr std::uint32_t kBudget = 3000;

// A long corridor map (like the 1000 x 60 one in the benchmark, smaller), every agent at the
// west end with an A* path to the east end.
struct CorridorWorld {
  static constexpr int kW = 200, kH = 12;
  static constexpr double kTile = 10;
  World world;
  explicit CorridorWorld(std::uint32_t budget = kBudget, int agents = 120)
      : world(make_def(budget)) {
    TileMapDef m{kW, kH, kTile, std::vector<std::uint8_t>(kW * kH, 0)};
    for (int x = 0; x < kW; ++x)
      m.cells[x] = m.cells[(kH - 1) * kW + x] = 1;  // walls north and south
    EXPECT_TRUE(world.apply(LoadMap{m}).ok());
    std::vector<SpawnAgent> spawns;
    for (int k = 0; k < agents; ++k) {
      SpawnAgent s;
      s.position = {15.0 + 10.0 * (k % 10), 15.0 + 8.0 * (k / 10) * 0.9};
      s.radius = 2;
      spawns.push_back(s);
    }
    EXPECT_TRUE(world.apply(Spawn{0, 0, spawns}).ok());
    EXPECT_TRUE(world.apply(SetPathing{{true, {}}, Pathing::astar, 8}).ok());
    SetTarget go;
    go.agents.all = true;
    go.target_tile = TileCoord{kW - 3, kH / 2};
    EXPECT_TRUE(world.apply(go).ok());
  }
  static WorldDef make_def(std::uint32_t budget) {
    WorldDef d;
    d.width = kW * kTile;
    d.height = kH * kTile;
    d.path_expansions_per_tick = budget;
    return d;
  }
  std::size_t pending() const {
    std::size_t n = 0;
    for (const PathState& p : world.paths()) n += p.pending;
    return n;
  }
  // Steps until nobody is pending (at most max_ticks), checking the budget every tick.
  int settle(int max_ticks) {
    for (int t = 1; t <= max_ticks; ++t) {
      world.step();
      EXPECT_LE(world.path_queue_stats().expansions_last_tick,
                world.def().path_expansions_per_tick);
      if (pending() == 0) return t;
    }
    return -1;
  }
};

TEST(PathQueue, ASetTilesReplanningEveryAgentStaysWithinTheBudgetAndEveryAgentGetsItsPath) {
  CorridorWorld c;
  ASSERT_GT(c.settle(2000), 1) << "the first plans should need more than one tick's budget";
  // A wall across most of the corridor: every agent's plan is stale at once.
  SetTiles wall;
  for (int y = 1; y < CorridorWorld::kH - 3; ++y) wall.tiles.push_back({{100, y}, true});
  ASSERT_TRUE(c.world.apply(wall).ok());
  c.world.step();
  EXPECT_LE(c.world.path_queue_stats().expansions_last_tick, kBudget);
  EXPECT_GT(c.pending(), c.world.agents().size() / 2) << "most agents wait for their new path";
  EXPECT_GT(c.world.path_queue_stats().queued, 0u);
  for (const Agent& a : c.world.agents()) EXPECT_NE(a.state, MoveState::unreachable);
  const int ticks = c.settle(5000);
  ASSERT_GT(ticks, 0) << "every request is served in the end";
  EXPECT_EQ(c.world.path_queue_stats().queued, 0u);
  for (std::size_t i = 0; i < c.world.agents().size(); ++i) {
    const PathState& p = c.world.paths()[i];
    EXPECT_FALSE(p.unreachable);
    EXPECT_FALSE(p.waypoints.empty());
    EXPECT_EQ(p.planned_revision, c.world.map_version());
  }
}

TEST(PathQueue, AgentsKeepMovingWhilePending) {
  CorridorWorld c(/*budget=*/200);
  for (int t = 0; t < 5; ++t) c.world.step();
  ASSERT_GT(c.pending(), 0u);
  double moving = 0;
  for (const Agent& a : c.world.agents()) moving += length(a.velocity) > 1;
  EXPECT_EQ(moving, static_cast<double>(c.world.agents().size()))
      << "a pending agent steers at its goal meanwhile";
}

TEST(PathQueue, WithBudgetToSpareEveryRequestIsAnsweredInTheTickItIsMade) {
  CorridorWorld c(/*budget=*/1'000'000'000);
  c.world.step();
  EXPECT_EQ(c.pending(), 0u);
  EXPECT_EQ(c.world.path_queue_stats().queued, 0u);
}

TEST(PathQueue, ACheckpointTakenMidQueueGoesOnBitForBit) {
  CorridorWorld c(/*budget=*/500);
  for (int t = 0; t < 3; ++t) c.world.step();
  ASSERT_GT(c.world.path_queue_stats().queued, 1u);
  auto loaded = World::load_checkpoint(c.world.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& copy = std::get<World>(loaded);
  EXPECT_EQ(copy.state_hash(), c.world.state_hash());
  EXPECT_EQ(copy.path_queue_stats().queued, c.world.path_queue_stats().queued);
  for (int t = 0; t < 400; ++t) {
    c.world.step();
    copy.step();
    ASSERT_EQ(copy.state_hash(), c.world.state_hash()) << "tick " << t;
    ASSERT_EQ(copy.path_queue_stats().expansions_last_tick,
              c.world.path_queue_stats().expansions_last_tick);
  }
  EXPECT_EQ(c.pending(), 0u);
}

TEST(PathQueue, TheBudgetIsAValidatedWorldSetting) {
  WorldDef d;
  EXPECT_EQ(d.path_expansions_per_tick, 5000u);
  d.path_expansions_per_tick = 0;
  EXPECT_FALSE(validate(d).empty());
}

}  // namespace
}  // namespace herd::sim
