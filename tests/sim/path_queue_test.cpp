// The world's path queue: A* requests served with a fixed budget of tile expansions per tick, so
// a set_tiles that replans every agent cannot stretch a tick; agents say pending meanwhile, every
// one gets its path, and a checkpoint taken mid-queue goes on bit for bit.
#include <gtest/gtest.h>

#include <variant>

#include "flow_field.hpp"
#include "herd/sim/world.hpp"
#include "path_service.hpp"
#include "world_access.hpp"

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
    for (const PathState& p : path_states(world)) n += p.pending;
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
    const PathState& p = path_states(c.world)[i];
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

// An open map with agents on flow pathing, agent k going to goal tile k of a row: `goals`
// distinct goals, each field far more work than one tick's budget when the map is large.
struct FlowWorld {
  World world;
  int width, height;
  // max_speed: an agent at its goal needs no field, so a test of the cache slows them.
  FlowWorld(int w, int h, int goals, std::uint32_t budget, double max_speed = 120)
      : world(make_def(w, h, budget)) {
    width = w;
    height = h;
    EXPECT_TRUE(world.apply(LoadMap{{w, h, 1.0, std::vector<std::uint8_t>(w * h, 0)}}).ok());
    std::vector<SpawnAgent> spawns;
    for (int k = 0; k < goals; ++k) {
      SpawnAgent s;
      s.position = {2.5 + (k % (w - 4)), h - 2.5 - (k / (w - 4))};
      s.radius = 0.3;
      s.max_speed = max_speed;
      spawns.push_back(s);
    }
    EXPECT_TRUE(world.apply(Spawn{0, 0, spawns}).ok());
    EXPECT_TRUE(world.apply(SetPathing{{true, {}}, Pathing::flow, 8}).ok());
    for (int k = 0; k < goals; ++k) retarget(k, TileCoord{k % w, (k / w) % (h / 2)});
  }
  static WorldDef make_def(int w, int h, std::uint32_t budget) {
    WorldDef d;
    d.width = w;
    d.height = h;
    d.path_expansions_per_tick = budget;
    return d;
  }
  void retarget(int k, TileCoord tile) {
    SetTarget go;
    go.agents.ids = {world.agents()[k].id};
    go.target_tile = tile;
    ASSERT_TRUE(world.apply(go).ok());
  }
  std::size_t pending() const {
    std::size_t n = 0;
    for (const PathState& p : path_states(world)) n += p.pending;
    return n;
  }
};

// The flow-field thrash: more distinct goals than the cache keeps, on a map whose fields take
// many ticks each. Every tick keeps to the budget (before, every field was rebuilt every tick),
// the cache never holds more than it may, and fields keep being served.
TEST(FlowFields, MoreGoalsThanTheCacheKeepsStayWithinTheBudget) {
  FlowWorld f(250, 187, 100, 5000);
  EXPECT_EQ(f.world.path_queue_stats().fields_kept, 0u) << "commands build no field";
  std::uint64_t built = 0;
  for (int t = 0; t < 120; ++t) {
    f.world.step();
    const PathQueueStats s = f.world.path_queue_stats();
    ASSERT_LE(s.expansions_last_tick, 5000u) << "tick " << t;
    ASSERT_LE(s.fields_kept, PathService::kMaxCachedFields);
    built = s.fields_built_total;
  }
  EXPECT_GE(built, 5u) << "fields are served over the ticks";
  EXPECT_GT(f.pending(), 0u) << "agents without a field wait for it";
}

// With budget for every field in one tick, a new goal is served in the tick it is made, as before.
TEST(FlowFields, WithBudgetToSpareEveryGoalHasItsFieldInTheTickItIsMade) {
  FlowWorld f(60, 45, 30, 1'000'000'000);
  f.world.step();
  EXPECT_EQ(f.pending(), 0u);
  EXPECT_EQ(f.world.path_queue_stats().fields_kept, 30u);
  EXPECT_EQ(f.world.path_queue_stats().fields_waiting, 0u);
}

// A full cache evicts the field used least recently, not every field: the 65th goal costs one
// field's build, and every other agent keeps its field.
TEST(FlowFields, AFullCacheEvictsTheLeastRecentlyUsedField) {
  // The budget: the most work any one of the 64 fields takes.
  std::uint64_t one_field = 0;
  const TileMap open({40, 30, 1.0, std::vector<std::uint8_t>(40 * 30, 0)});
  for (int k = 0; k <= 64; ++k) {
    FlowField probe;
    probe.build(open, k < 64 ? TileCoord{k % 40, k / 40} : TileCoord{20, 20}, Neighbourhood::eight);
    one_field = std::max(one_field, probe.work());
  }
  // Walkers too slow to reach their goals in the test: each keeps its field in use.
  FlowWorld f(40, 30, 64, static_cast<std::uint32_t>(one_field), 0.01);
  for (int t = 0; t < 200 && (t == 0 || f.pending() > 0); ++t) f.world.step();
  ASSERT_EQ(f.pending(), 0u);
  ASSERT_EQ(f.world.path_queue_stats().fields_kept, 64u);
  const std::uint64_t built = f.world.path_queue_stats().fields_built_total;
  f.retarget(0, TileCoord{20, 20});  // agent 0 leaves its goal: that field is no longer used
  for (int t = 0; t < 3; ++t) f.world.step();
  EXPECT_EQ(f.pending(), 0u) << "only agent 0 needed a new field";
  EXPECT_EQ(f.world.path_queue_stats().fields_built_total, built + 1);
  EXPECT_EQ(f.world.path_queue_stats().fields_kept, 64u);
}

// Fields are world state now (which are kept, which wait, the build under way): a checkpoint
// taken mid-build goes on bit for bit and saves the same bytes.
TEST(FlowFields, ACheckpointTakenMidBuildGoesOnBitForBit) {
  FlowWorld f(120, 90, 12, 4000);
  for (int t = 0; t < 15; ++t) f.world.step();
  ASSERT_GT(f.world.path_queue_stats().fields_waiting, 1u);
  ASSERT_GT(f.world.path_queue_stats().fields_kept, 0u);
  const std::string saved = f.world.save_checkpoint();
  auto loaded = World::load_checkpoint(saved);
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& copy = std::get<World>(loaded);
  EXPECT_EQ(copy.save_checkpoint(), saved);
  EXPECT_EQ(copy.state_hash(), f.world.state_hash());
  for (int t = 0; t < 300; ++t) {
    f.world.step();
    copy.step();
    ASSERT_EQ(copy.state_hash(), f.world.state_hash()) << "tick " << t;
    ASSERT_EQ(copy.path_queue_stats().expansions_last_tick,
              f.world.path_queue_stats().expansions_last_tick);
  }
  EXPECT_EQ(f.pending(), 0u);
}

// A flow goal off the map (a smaller map loaded under it) or on a wall needs no field: its agents
// are unreachable at once, and the checkpoint loads (it once kept a field for a tile off the map).
TEST(FlowFields, AGoalOffTheMapIsUnreachableWithoutAField) {
  FlowWorld f(30, 20, 10, 5000);  // goals (0, 0) to (9, 0)
  f.world.step();
  ASSERT_TRUE(f.world.apply(LoadMap{{5, 5, 1.0, std::vector<std::uint8_t>(25, 0)}}).ok());
  f.world.step();
  EXPECT_EQ(f.world.path_queue_stats().fields_kept, 5u) << "goals (0, 0) to (4, 0) are on it";
  EXPECT_EQ(f.world.path_queue_stats().fields_waiting, 0u);
  for (std::size_t k = 5; k < 10; ++k) {
    EXPECT_TRUE(path_states(f.world)[k].unreachable) << k;
    EXPECT_FALSE(path_states(f.world)[k].pending) << k;
  }
  auto loaded = World::load_checkpoint(f.world.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  EXPECT_EQ(std::get<World>(loaded).state_hash(), f.world.state_hash());
}

// A command's reachability check builds no field (it reads the map's regions), and still
// refuses a goal walled off from the agent.
TEST(FlowFields, ReachabilityChecksBuildNoField) {
  FlowWorld f(30, 20, 4, 5000);
  SetTiles wall;
  for (int y = 0; y < 20; ++y) wall.tiles.push_back({{15, y}, true});
  ASSERT_TRUE(f.world.apply(wall).ok());
  SetTarget across;
  across.agents.all = true;
  across.target_tile = TileCoord{25, 5};
  const CommandOutcome refused = f.world.apply(across);
  EXPECT_EQ(refused.error, CommandError::unreachable);
  SetTarget near = across;
  near.target_tile = TileCoord{5, 5};
  EXPECT_TRUE(f.world.apply(near).ok());
  EXPECT_EQ(f.world.path_queue_stats().fields_kept, 0u);
  f.world.step();
  EXPECT_EQ(f.world.path_queue_stats().fields_kept, 1u);
}

TEST(PathQueue, TheBudgetIsAValidatedWorldSetting) {
  WorldDef d;
  EXPECT_EQ(d.path_expansions_per_tick, 5000u);
  d.path_expansions_per_tick = 0;
  EXPECT_FALSE(validate(d).empty());
}

}  // namespace
}  // namespace herd::sim
