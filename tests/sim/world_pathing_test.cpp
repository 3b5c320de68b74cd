// Tile maps in the world: the no-backtracking walker, A* and flow-field agents, walls, refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "herd/sim/world.hpp"
#include "rng.hpp"
#include "tile_collision.hpp"
#include "world_access.hpp"

namespace herd::sim {
namespace {

TileMap seed_maze() {
  std::ifstream in(HERD_MAPS_DIR "/seed_maze.txt");
  std::stringstream text;
  text << in.rdbuf();
  return std::get<TileMap>(parse_tile_map(text.str(), 40));
}

TileMapDef def_of(const TileMap& m) {
  return {m.width(), m.height(), m.tile_size(),
          std::vector<std::uint8_t>(m.cells().begin(), m.cells().end())};
}

struct MazeWorld {
  World world{WorldDef{}};
  MazeWorld() { EXPECT_TRUE(world.apply(LoadMap{def_of(seed_maze())}).ok()); }
  AgentId add(TileCoord t, Pathing p) {
    SpawnAgent s;
    s.position = world.map()->tile_centre(t);
    const AgentId id = world.apply(Spawn{0, 0, {s}}).spawned.at(0);
    EXPECT_TRUE(world.apply(SetPathing{{false, {id}}, p, 8}).ok());
    return id;
  }
  CommandOutcome go(AgentId id, TileCoord t) {
    SetTarget c;
    c.agents.ids = {id};
    c.target_tile = t;
    return world.apply(c);
  }
  const Agent& agent(AgentId id) { return *world.find(id); }
  std::size_t index(AgentId id) {
    return static_cast<std::size_t>(world.find(id) - world.agents().data());
  }
};

TEST(WorldPathing, PathingStateExistsOnlyWhileThereIsAMap) {
  // Without a map an agent has nothing to plan on, and its pathing state costs nothing.
  World world{WorldDef{}};
  SpawnAgent s;
  s.position = {100, 100};
  ASSERT_TRUE(world.apply(Spawn{0, 0, {s, s}}).ok());
  world.step();
  EXPECT_TRUE(path_states(world).empty());
  const std::uint64_t before = world.state_hash();
  ASSERT_TRUE(world.apply(LoadMap{def_of(seed_maze())}).ok());
  EXPECT_EQ(path_states(world).size(), world.agents().size());
  ASSERT_TRUE(world.apply(Spawn{0, 0, {s}}).ok());
  EXPECT_EQ(path_states(world).size(), 3u);
  ASSERT_TRUE(world.apply(SetPathing{{false, {1}}, Pathing::no_backtrack, 8}).ok());
  ASSERT_TRUE(world
                  .apply(SetTarget{
                      {false, {1}}, world.map()->tile_centre({5, 5}), BehaviourKind::arrive, {}})
                  .ok());
  for (int t = 0; t < 30; ++t) world.step();
  EXPECT_TRUE(path_states(world)[0].walker_placed);
  // A checkpoint keeps the walker's state while the map is there, and drops it with the map.
  auto loaded = World::load_checkpoint(world.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded));
  EXPECT_EQ(std::get<World>(loaded).state_hash(), world.state_hash());
  EXPECT_EQ(path_states(std::get<World>(loaded)).size(), 3u);
  ASSERT_TRUE(world.apply(ClearMap{}).ok());
  EXPECT_TRUE(path_states(world).empty());
  world.step();
  auto cleared = World::load_checkpoint(world.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(cleared));
  EXPECT_TRUE(path_states(std::get<World>(cleared)).empty());
  EXPECT_EQ(std::get<World>(cleared).state_hash(), world.state_hash());
  EXPECT_NE(before, world.state_hash());
}

TEST(WorldPathing, TheSeedsWalkerTakesItsPinnedStepsThroughTheWorld) {
  MazeWorld m;
  const AgentId w = m.add({1, 1}, Pathing::no_backtrack);
  ASSERT_TRUE(m.go(w, {18, 13}).ok());
  int arrived_tick = -1;
  std::size_t longest_history = 0;
  for (int t = 1; t <= 60 * 15 && arrived_tick < 0; ++t) {
    m.world.step();
    longest_history =
        std::max(longest_history, path_states(m.world)[m.index(w)].walker.history.size());
    if (m.agent(w).state == MoveState::arrived) arrived_tick = t;
  }
  const PathState& p = path_states(m.world)[m.index(w)];
  EXPECT_EQ(p.walker.moves, 41u) << "the tutorial's own step count from (1,1) to (18,13)";
  const PathView seen = m.world.path(m.index(w));  // what users of the library see
  EXPECT_TRUE(std::ranges::equal(seen.trail, p.walker.history));
  EXPECT_FALSE(seen.pending);
  EXPECT_FALSE(seen.unreachable);
  EXPECT_TRUE(m.world.path(m.world.agents().size()).trail.empty()) << "no such agent: nothing";
  ASSERT_GT(arrived_tick, 0);
  EXPECT_NEAR(arrived_tick / 60.0, 41 * 0.23, 1.5 / 60) << "one tile per 230 ms of world time";
  EXPECT_EQ(m.agent(w).position, m.world.map()->tile_centre({18, 13}));
  EXPECT_LE(longest_history, 20u);
}

TEST(WorldPathing, AStarGoesAroundWallsAndNeverThroughThem) {
  MazeWorld m;
  const AgentId a = m.add({1, 1}, Pathing::astar);
  ASSERT_TRUE(m.go(a, {18, 13}).ok());
  for (int t = 0; t < 60 * 20 && m.agent(a).state != MoveState::arrived; ++t) {
    m.world.step();
    ASSERT_LE(penetration(*m.world.map(), m.agent(a).position, m.agent(a).def.radius), 1e-6) << t;
  }
  EXPECT_EQ(m.agent(a).state, MoveState::arrived);
  EXPECT_LE(length(m.agent(a).position - m.world.map()->tile_centre({18, 13})),
            m.agent(a).def.arrive_tolerance);
}

TEST(WorldPathing, ManyFlowAgentsOnOneGoalAllArriveAndNoneEndsInAWall) {
  // An open 50x40 map of 20-unit tiles with seeded random wall blocks and a clear goal area.
  WorldDef def;
  def.width = 1000;
  def.height = 800;
  def.agent_defaults.radius = 4;
  World world(def);
  TileMapDef map{50, 40, 20, std::vector<std::uint8_t>(2000, kWalkable)};
  Rng rng(5);
  for (int k = 0; k < 60; ++k) {  // 60 wall blocks of 2x3 tiles
    const int x = static_cast<int>(rng.uniform(0, 48)), y = static_cast<int>(rng.uniform(0, 37));
    for (int dy = 0; dy < 3; ++dy)
      for (int dx = 0; dx < 2; ++dx)
        if (std::abs(x + dx - 25) > 5 || std::abs(y + dy - 20) > 5)
          map.cells[(y + dy) * 50 + x + dx] = kBlocked;
  }
  ASSERT_TRUE(world.apply(LoadMap{map}).ok());
  std::vector<SpawnAgent> crowd;
  for (int y = 0; y < 40 && crowd.size() < 150; y += 3)
    for (int x = 0; x < 50 && crowd.size() < 150; x += 3)
      if (world.map()->walkable({x, y}) && (std::abs(x - 25) > 8 || std::abs(y - 20) > 8)) {
        SpawnAgent s;
        s.position = world.map()->tile_centre({x, y});
        crowd.push_back(s);
      }
  ASSERT_GE(crowd.size(), 100u);
  ASSERT_TRUE(world.apply(Spawn{0, 0, crowd}).ok());
  ASSERT_TRUE(world.apply(SetPathing{{true, {}}, Pathing::flow, 8}).ok());
  const Vec2 goal = world.map()->tile_centre({25, 20});
  const CommandOutcome sent = world.apply(SetTarget{{true, {}}, goal, BehaviourKind::arrive, {}});
  ASSERT_TRUE(sent.ok()) << sent.message;
  for (int t = 0; t < 60 * 40; ++t) {
    world.step();
    for (const Agent& a : world.agents())
      ASSERT_LE(penetration(*world.map(), a.position, a.def.radius), 1e-6) << t;
  }
  double sum = 0, furthest = 0;
  for (const Agent& a : world.agents()) {
    const double d = length(a.position - goal);
    sum += d;
    furthest = std::max(furthest, d);
    EXPECT_TRUE(line_of_sight(*world.map(), a.position, goal))
        << "agent " << a.id << " is still behind a wall";
    EXPECT_NE(a.state, MoveState::unreachable);
  }
  // Everyone started at least 180 units (9 tiles, behind wall blocks) away. Personal space keeps
  // a crowd on one point looser than touching discs: measured mean 78, furthest 136.
  EXPECT_LE(sum / static_cast<double>(world.agents().size()), 100);
  EXPECT_LE(furthest, 150);
}

TEST(WorldPathing, TargetsOnWallsOrOutOfReachAreRefusedWhole) {
  MazeWorld m;
  const AgentId direct = m.add({1, 1}, Pathing::direct);
  const AgentId flow = m.add({3, 1}, Pathing::flow);
  const auto before = m.world.state_hash();
  CommandOutcome out = m.go(direct, {0, 0});
  EXPECT_EQ(out.error, CommandError::unreachable);
  EXPECT_NE(out.message.find("blocked"), std::string::npos) << out.message;
  // Wall tile (1,4)... make (3,1) a pocket: block (3,2) so the flow agent cannot get out.
  ASSERT_TRUE(m.world.apply(SetTiles{{{{3, 2}, true}}}).ok());
  SetTarget both;
  both.agents.ids = {direct, flow};
  both.target_tile = TileCoord{18, 13};
  out = m.world.apply(both);
  EXPECT_EQ(out.error, CommandError::unreachable);
  EXPECT_NE(out.message.find("agent 2"), std::string::npos) << out.message;
  EXPECT_EQ(m.agent(direct).behaviour.kind, BehaviourKind::idle) << "refused whole";
  (void)before;
}

TEST(WorldPathing, AGoalThatBecomesUnreachableIsReportedNotStalledOn) {
  MazeWorld m;
  const AgentId a = m.add({1, 1}, Pathing::flow);
  ASSERT_TRUE(m.go(a, {18, 13}).ok());
  for (int t = 0; t < 30; ++t) m.world.step();
  EXPECT_EQ(m.agent(a).state, MoveState::moving);
  // Wall the goal in.
  ASSERT_TRUE(m.world.apply(SetTiles{{{{17, 13}, true}, {{18, 12}, true}}}).ok());
  m.world.step();
  EXPECT_EQ(m.agent(a).state, MoveState::unreachable);
  ASSERT_TRUE(m.world.apply(SetTiles{{{{17, 13}, false}}}).ok());
  m.world.step();
  EXPECT_EQ(m.agent(a).state, MoveState::moving);
}

TEST(WorldPathing, MapsAreCheckedAndTileCommandsNeedOne) {
  World world(WorldDef{});
  TileMapDef too_big{40, 15, 40, std::vector<std::uint8_t>(600, kWalkable)};  // 1600 units wide
  EXPECT_EQ(world.apply(LoadMap{too_big}).error, CommandError::bad_map);
  TileMapDef bad{20, 15, 40, std::vector<std::uint8_t>(10, kWalkable)};
  EXPECT_EQ(world.apply(LoadMap{bad}).error, CommandError::bad_map);
  EXPECT_EQ(world.apply(SetTiles{{{{1, 1}, true}}}).error, CommandError::no_map);
  EXPECT_EQ(world.apply(ClearMap{}).error, CommandError::no_map);
  ASSERT_TRUE(world.apply(Spawn{1, 0, {}}).ok());
  EXPECT_EQ(world.apply(SetPathing{{true, {}}, Pathing::astar, 8}).error, CommandError::no_map);
  SetTarget by_tile;
  by_tile.agents.all = true;
  by_tile.target_tile = TileCoord{1, 1};
  EXPECT_EQ(world.apply(by_tile).error, CommandError::no_map);
  EXPECT_EQ(world.map(), nullptr);
}

TEST(WorldPathing, EveryoneIsKeptOutOfWalls) {
  MazeWorld m;
  SpawnAgent s;
  s.position = {60, 60};
  s.target = Vec2{60, 560};  // straight down through walls, direct steering
  ASSERT_TRUE(m.world.apply(Spawn{0, 0, {s}}).ok() == false) << "(60,560) is a wall tile: refused";
  s.target = Vec2{300, 60};
  ASSERT_TRUE(m.world.apply(Spawn{0, 0, {s}}).ok());
  for (int t = 0; t < 600; ++t) {
    m.world.step();
    for (const Agent& a : m.world.agents())
      ASSERT_LE(penetration(*m.world.map(), a.position, a.def.radius), 1e-6);
  }
}

}  // namespace
}  // namespace herd::sim
