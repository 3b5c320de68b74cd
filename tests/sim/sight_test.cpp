// Sight that walls block (World::seen_by, world_sight.cpp): an enemy behind a wall, a blocked tile
// or an obstacle is not seen while one in the open at the same distance is; a random crowd among
// walls and obstacles is seen exactly as a brute-force line test says; and a team's attack-move
// does not engage what a wall hides.
#include <gtest/gtest.h>

#include <cmath>

#include "herd/sim/world.hpp"
#include "rng.hpp"

namespace herd::sim {
namespace {

WorldDef def() {
  WorldDef d;
  d.width = 800;
  d.height = 600;
  return d;
}

AgentId spawn_one(World& w, Vec2 at, std::uint8_t team) {
  Spawn s;
  SpawnAgent a;
  a.position = at;
  s.agents = {a};
  s.team = team;
  const CommandOutcome out = w.apply(s);
  EXPECT_TRUE(out.ok()) << out.message;
  return out.spawned.empty() ? 0 : out.spawned[0];
}

std::uint64_t seen_of(const World& w, AgentId id) {
  std::vector<std::uint64_t> seen;
  w.seen_by(seen);
  for (std::size_t i = 0; i < w.agents().size(); ++i)
    if (w.agents()[i].id == id) return seen[i];
  return 0;
}

constexpr std::uint64_t kRed = 1u << 1, kBlue = 1u << 2;

TEST(Sight, AWallHidesAnEnemyThatOneInTheOpenAtTheSameDistanceIsNot) {
  World w(def());
  spawn_one(w, {100, 300}, 1);
  const AgentId hidden = spawn_one(w, {250, 300}, 2);  // 150 away, behind the wall
  const AgentId open = spawn_one(w, {100, 450}, 2);    // 150 away, in the open
  EXPECT_EQ(seen_of(w, hidden), kRed | kBlue) << "no wall yet";
  ASSERT_TRUE(w.apply(AddWall{{{175, 200}, {175, 400}}}).ok());
  EXPECT_EQ(seen_of(w, hidden), kBlue);
  EXPECT_EQ(seen_of(w, open), kRed | kBlue);
}

TEST(Sight, ABlockedTileAndAnObstacleBlockSightToo) {
  World w(def());
  TileMapDef map;  // 20-unit tiles over the world
  map.width = 40;
  map.height = 30;
  map.tile_size = 20;
  map.cells.assign(40 * 30, kWalkable);
  for (int y = 10; y <= 20; ++y) map.cells[static_cast<std::size_t>(y * 40 + 8)] = kBlocked;
  ASSERT_TRUE(w.apply(LoadMap{map}).ok());  // blocked: x in [160, 180), y in [200, 420)
  spawn_one(w, {100, 300}, 1);
  const AgentId behind_tiles = spawn_one(w, {250, 300}, 2);
  const AgentId open = spawn_one(w, {100, 450}, 2);
  EXPECT_EQ(seen_of(w, behind_tiles), kBlue);
  EXPECT_EQ(seen_of(w, open), kRed | kBlue);

  World o(def());
  spawn_one(o, {100, 100}, 1);
  const AgentId behind_rock = spawn_one(o, {250, 100}, 2);
  ASSERT_TRUE(o.apply(AddObstacle{{175, 100}, 30}).ok());
  EXPECT_EQ(seen_of(o, behind_rock), kBlue) << "before a step indexes the obstacle, too";
  o.step();
  EXPECT_EQ(seen_of(o, behind_rock), kBlue);
  const AgentId beside_rock = spawn_one(o, {250, 180}, 2);  // the line passes below the rock
  EXPECT_EQ(seen_of(o, beside_rock), kRed | kBlue);
}

// Whether segment p-q meets segment a-b or passes within r of c (brute force, for the test).
bool meets(Vec2 p, Vec2 q, Vec2 a, Vec2 b) {
  const auto cross = [](Vec2 o, Vec2 u, Vec2 v) {
    return (u.x - o.x) * (v.y - o.y) - (u.y - o.y) * (v.x - o.x);
  };
  const double d1 = cross(a, b, p), d2 = cross(a, b, q), d3 = cross(p, q, a), d4 = cross(p, q, b);
  return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0)) && d1 != 0 && d2 != 0 && d3 != 0 &&
         d4 != 0;
}
bool passes_through(Vec2 p, Vec2 q, Vec2 c, double r) {
  const Vec2 d = q - p;
  const double t = std::clamp(dot(c - p, d) / dot(d, d), 0.0, 1.0);
  return length(p + d * t - c) < r;
}

TEST(Sight, ARandomCrowdAmongWallsAndObstaclesIsSeenAsALineTestSays) {
  World w(def());
  std::vector<std::pair<Vec2, Vec2>> walls;
  Rng rng(5);
  for (int k = 0; k < 12; ++k) {
    const Vec2 a{rng.uniform(50, 750), rng.uniform(50, 550)};
    const Vec2 b = a + Vec2{rng.uniform(-120, 120), rng.uniform(-120, 120)};
    const Vec2 bb{std::clamp(b.x, 1.0, 799.0), std::clamp(b.y, 1.0, 599.0)};
    if (w.apply(AddWall{{a, bb}}).ok()) walls.emplace_back(a, bb);
  }
  std::vector<Obstacle> rocks;
  for (int k = 0; k < 8; ++k) {
    const Vec2 c{rng.uniform(50, 750), rng.uniform(50, 550)};
    if (w.apply(AddObstacle{c, 20}).ok()) rocks.push_back({0, c, 20});
  }
  Spawn s;
  for (int k = 0; k < 300; ++k) {
    SpawnAgent a;
    a.position = {rng.uniform(10, 790), rng.uniform(10, 590)};
    a.team = static_cast<std::uint8_t>(1 + k % 3);
    s.agents.push_back(a);
  }
  ASSERT_TRUE(w.apply(s).ok());
  w.step();  // indexes the obstacles; agents move a little
  std::vector<std::uint64_t> seen;
  w.seen_by(seen);
  const auto agents = w.agents();
  std::size_t hidden_by_something = 0;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    std::uint64_t expect = std::uint64_t{1} << agents[i].team;
    for (const Agent& v : agents) {
      const Vec2 p = v.position, q = agents[i].position;
      if (length(q - p) > v.def.sight) continue;
      bool blocked = false;
      for (const auto& [a, b] : walls) blocked = blocked || meets(p, q, a, b);
      for (const Obstacle& r : rocks)
        blocked = blocked || passes_through(p, q, r.position, r.radius);
      if (!blocked)
        expect |= std::uint64_t{1} << v.team;
      else if ((expect >> v.team & 1) == 0)
        ++hidden_by_something;
    }
    EXPECT_EQ(seen[i], expect) << "agent " << agents[i].id;
  }
  EXPECT_GT(hidden_by_something, 50u) << "the walls hide something";
}

TEST(Sight, ATeamsAttackMoveDoesNotEngageWhatAWallHides) {
  World w(def());
  ASSERT_TRUE(w.apply(AddWall{{{300, 100}, {300, 500}}}).ok());
  Spawn red;
  SpawnAgent a;
  a.position = {200, 300};
  a.combat.damage = 10;
  a.combat.range = 150;
  red.agents = {a};
  red.team = 1;
  ASSERT_TRUE(w.apply(red).ok());
  const AgentId enemy = spawn_one(w, {400, 300}, 2);  // 200 away, behind the wall
  SetTarget go;
  go.agents = Selection(true);
  go.agents.team = 1;
  go.target = {200, 550};  // along the wall's side
  go.behaviour = BehaviourKind::attack_move;
  ASSERT_TRUE(w.apply(go).ok());
  for (int t = 0; t < 120; ++t) {
    w.step();
    const Agent& r = w.agents()[0];
    ASSERT_NE(r.behaviour.phase, Phase::engage) << "engaged an enemy behind the wall at tick " << t;
    ASSERT_FLOAT_EQ(w.find(enemy)->hp, 100.0F);
  }
}

}  // namespace
}  // namespace herd::sim
