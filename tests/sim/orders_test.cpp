// Orders as RTS players give them: a group sent to one point settles (spread keep, point,
// formation), waypoints queue, attack-moves engage enemies met on the way, patrols go round
// their routes, stop forgets it all; all in checkpoints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

WorldDef open_world(double width = 800, double height = 600) {
  WorldDef d;
  d.width = width;
  d.height = height;
  d.seed = 7;
  return d;
}

// n agents in a square grid `pitch` apart, centred on `centre`.
Spawn grid_of(std::size_t n, Vec2 centre, double pitch, std::uint8_t group = 0) {
  Spawn s;
  const auto side = static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n))));
  for (std::size_t k = 0; k < n; ++k) {
    SpawnAgent a;
    a.position = centre + Vec2{(static_cast<double>(k % side) - (side - 1) / 2.0) * pitch,
                               (static_cast<double>(k / side) - (side - 1) / 2.0) * pitch};
    a.group = group;
    s.agents.push_back(a);
  }
  return s;
}

// Steps until every agent has settled (arrived, slower than 1 unit/s), at most `limit` seconds.
// Fails the test if an agent that had stopped is marked collided later. Returns the seconds.
double settle(World& w, double limit) {
  std::map<AgentId, bool> stopped;
  const auto ticks = static_cast<std::uint64_t>(limit / w.def().dt);
  for (std::uint64_t t = 0; t < ticks; ++t) {
    w.step();
    bool all = true;
    for (const Agent& a : w.agents()) {
      if (stopped[a.id] && a.collided) {
        ADD_FAILURE() << "agent " << a.id << " was hit after it stopped, at tick " << w.tick();
        return HUGE_VAL;
      }
      const bool still = a.state == MoveState::arrived && length(a.velocity) < 1;
      stopped[a.id] = stopped[a.id] || still;
      all = all && still;
    }
    if (all) return static_cast<double>(t + 1) * w.def().dt;
  }
  return HUGE_VAL;
}

SpawnAgent agent_at(Vec2 position, std::uint8_t group) {
  SpawnAgent a;
  a.position = position;
  a.group = group;
  return a;
}

double farthest_from(const World& w, Vec2 point) {
  double d = 0;
  for (const Agent& a : w.agents()) d = std::max(d, length(a.position - point));
  return d;
}

struct GroupCase {
  std::size_t n;
  bool scattered;
  Spread spread;
  std::uint64_t seed = 7;  // the world's: where a scattered group stands
  Vec2 point{800, 550};
  Vec2 clump{300, 300};  // a clump's centre, and its pitch
  double pitch = 20;
};

class GroupToAPoint : public ::testing::TestWithParam<GroupCase> {};

// A group sent to one point comes to rest there within 1.5 times the ideal time (the farthest
// agent's straight line to the point at max speed) plus 2 s, and nobody is hit once stopped.
TEST_P(GroupToAPoint, SettlesWithinTheIdealTimeAndNobodyIsHitOnceStopped) {
  const GroupCase c = GetParam();
  WorldDef def = open_world(1200, 900);
  def.seed = c.seed;
  World w(def);
  Spawn s;
  if (c.scattered) {
    s.count = static_cast<std::uint32_t>(c.n);
  } else {
    s = grid_of(c.n, c.clump, c.pitch);
  }
  ASSERT_TRUE(w.apply(s).ok());
  w.step();
  SetTarget go;
  go.agents = {true};
  go.target = c.point;
  go.spread = c.spread;
  go.shape = Shape::block;
  const CommandOutcome out = w.apply(go);
  ASSERT_TRUE(out.ok()) << out.message;
  const double ideal = farthest_from(w, c.point) / w.def().agent_defaults.max_speed;
  const double took = settle(w, 1.5 * ideal + 2);
  EXPECT_LE(took, 1.5 * ideal + 2) << "ideal " << ideal << " s";
  // At rest for a second more: nobody moves or is hit.
  for (int t = 0; t < 60; ++t) w.step();
  for (const Agent& a : w.agents()) {
    EXPECT_EQ(a.state, MoveState::arrived) << a.id;
    EXPECT_FALSE(a.collided) << a.id;
  }
}

std::string case_name(const ::testing::TestParamInfo<GroupCase>& info) {
  static constexpr const char* kSpread[] = {"keep", "point", "formation"};
  return std::to_string(info.param.n) + (info.param.scattered ? "_scattered_" : "_clump_") +
         kSpread[static_cast<int>(info.param.spread)] + "_seed" + std::to_string(info.param.seed);
}

// 16, 100 and 500 agents, from a clump and from a scattered start, with each spread.
std::vector<GroupCase> every_size() {
  std::vector<GroupCase> cases;
  for (std::size_t n : {16, 100, 500})
    for (bool scattered : {false, true})
      for (Spread spread : {Spread::keep, Spread::point, Spread::formation})
        cases.push_back({n, scattered, spread});
  return cases;
}
INSTANTIATE_TEST_SUITE_P(Sizes, GroupToAPoint, ::testing::ValuesIn(every_size()), case_name);

// The largest groups again, from other starts to other points: near the edges and corners of the
// world, from clumps at other pitches.
std::vector<GroupCase> other_starts() {
  const Vec2 points[] = {{600, 450}, {200, 800}, {1100, 100}};
  const Vec2 clumps[] = {{350, 330}, {700, 400}, {600, 350}};
  std::vector<GroupCase> cases;
  for (std::uint64_t k = 0; k < 3; ++k)
    for (bool scattered : {false, true})
      for (Spread spread : {Spread::keep, Spread::point})
        cases.push_back({500, scattered, spread, 11 + k, points[k], clumps[k], 17.0 + 3 * k});
  return cases;
}
INSTANTIATE_TEST_SUITE_P(Starts, GroupToAPoint, ::testing::ValuesIn(other_starts()), case_name);

// Keep: a group already together keeps its shape, moved to the point.
TEST(Spread, KeepMovesATightGroupAsItStands) {
  World w(open_world());
  const CommandOutcome spawned = w.apply(grid_of(9, {200, 200}, 24));
  SetTarget go;
  go.agents = {true};
  go.target = {500, 400};
  ASSERT_TRUE(w.apply(go).ok());  // more than one agent: keep by default
  std::map<AgentId, Vec2> before;
  for (const Agent& a : w.agents()) before[a.id] = a.position;
  for (const Agent& a : w.agents()) {
    EXPECT_NEAR(a.behaviour.point.x, before[a.id].x + 300, 1e-9);
    EXPECT_NEAR(a.behaviour.point.y, before[a.id].y + 200, 1e-9);
  }
}

// Keep: a scattered group converges into a packed clump round the point, keeping its
// arrangement (the agent farthest left goes to the clump's left).
TEST(Spread, KeepGathersAScatteredGroupIntoAClump) {
  World w(open_world());
  Spawn s;
  for (double x : {50.0, 750.0})
    for (double y : {50.0, 550.0}) {
      SpawnAgent a;
      a.position = {x, y};
      s.agents.push_back(a);
    }
  ASSERT_TRUE(w.apply(s).ok());
  SetTarget go;
  go.agents = {true};
  go.target = {400, 300};
  ASSERT_TRUE(w.apply(go).ok());
  for (const Agent& a : w.agents()) {
    const Vec2 off = a.behaviour.point - Vec2{400, 300};
    EXPECT_LT(length(off), 3 * 8 * 1.5) << a.id;         // a clump at 3 radii, not the spread
    EXPECT_GE(off.x * (a.position.x - 400), 0) << a.id;  // not the other side
  }
}

TEST(Spread, PointSendsEveryoneToThePointAndFormationMakesOneFacingTheWay) {
  World w(open_world());
  ASSERT_TRUE(w.apply(grid_of(8, {200, 300}, 20)).ok());
  SetTarget go;
  go.agents = {true};
  go.target = {600, 300};
  go.spread = Spread::point;
  ASSERT_TRUE(w.apply(go).ok());
  for (const Agent& a : w.agents()) EXPECT_EQ(a.behaviour.point, (Vec2{600, 300}));
  go.spread = Spread::formation;
  go.shape = Shape::line;
  const CommandOutcome formed = w.apply(go);
  ASSERT_TRUE(formed.ok()) << formed.message;
  ASSERT_TRUE(formed.formation.has_value());
  // Travel along +x: the line stands across it, along y.
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (const Agent& a : w.agents()) {
    EXPECT_NEAR(a.behaviour.point.x, 600, 2) << a.behaviour.point.y;  // the way is nearly +x
    lo = std::min(lo, a.behaviour.point.y);
    hi = std::max(hi, a.behaviour.point.y);
  }
  EXPECT_GT(hi - lo, 100);
  go.queue = true;
  EXPECT_EQ(w.apply(go).error, CommandError::bad_selection);  // a formation is not queued
}

// Queued waypoints are walked in order; stop forgets them.
TEST(Queue, ThreeWaypointsAreWalkedInOrderAndStopForgetsThem) {
  World w(open_world());
  const CommandOutcome spawned = w.apply(grid_of(1, {100, 100}, 0));
  const AgentId id = spawned.spawned.at(0);
  const std::vector<Vec2> way = {{400, 100}, {400, 400}, {100, 400}};
  SetTarget go;
  go.agents = {false, {id}};
  go.target = way[0];
  ASSERT_TRUE(w.apply(go).ok());
  go.queue = true;
  for (std::size_t k = 1; k < way.size(); ++k) {
    go.target = way[k];
    ASSERT_TRUE(w.apply(go).ok());
  }
  EXPECT_EQ(w.upcoming(id), (std::vector<Vec2>{way[1], way[2]}));
  std::vector<std::size_t> reached;
  for (int t = 0; t < 60 * 20 && reached.size() < way.size(); ++t) {
    w.step();
    const Agent& a = *w.find(id);
    for (std::size_t k = 0; k < way.size(); ++k)
      if (length(a.position - way[k]) < 1 &&
          std::find(reached.begin(), reached.end(), k) == reached.end())
        reached.push_back(k);
  }
  EXPECT_EQ(reached, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_TRUE(w.upcoming(id).empty());
  // Queued again, then stopped: nothing left.
  go.target = {200, 200};
  go.queue = false;
  ASSERT_TRUE(w.apply(go).ok());
  go.queue = true;
  go.target = {300, 300};
  ASSERT_TRUE(w.apply(go).ok());
  EXPECT_EQ(w.upcoming(id).size(), 1u);
  ASSERT_TRUE(w.apply(Stop{{false, {id}}}).ok());
  EXPECT_TRUE(w.upcoming(id).empty());
  EXPECT_FALSE(w.has_orders());
  EXPECT_EQ(w.find(id)->behaviour.kind, BehaviourKind::idle);
}

// An order queued for an agent with nothing to do starts at once.
TEST(Queue, QueuedOnAnIdleAgentStartsAtOnce) {
  World w(open_world());
  const AgentId id = w.apply(grid_of(1, {100, 100}, 0)).spawned.at(0);
  SetTarget go;
  go.agents = {false, {id}};
  go.target = {300, 100};
  go.queue = true;
  ASSERT_TRUE(w.apply(go).ok());
  EXPECT_EQ(w.find(id)->behaviour.point, (Vec2{300, 100}));
  EXPECT_TRUE(w.upcoming(id).empty());
}

// Attack-move: on the way it engages an enemy that comes within sight, hits it, carries on.
TEST(AttackMove, EngagesAnEnemyMetOnTheWayThenReachesThePoint) {
  World w(open_world());
  Spawn s;
  s.agents.push_back(agent_at({100, 300}, 1));
  s.agents.push_back(agent_at({400, 380}, 2));  // beside the way
  s.agents.push_back(agent_at({120, 340}, 1));  // a friend: ignored
  const CommandOutcome spawned = w.apply(s);
  const AgentId mover = spawned.spawned[0], enemy = spawned.spawned[1];
  SetTarget go;
  go.agents = {false, {mover}};
  go.target = {700, 300};
  go.behaviour = BehaviourKind::attack_move;
  go.radius = 150;
  ASSERT_TRUE(w.apply(go).ok());
  bool engaged = false, hit = false, left_after = false;
  for (int t = 0; t < 60 * 20; ++t) {
    w.step();
    const Agent& a = *w.find(mover);
    if (a.behaviour.phase == Phase::engage) {
      EXPECT_EQ(a.behaviour.agent, enemy);
      engaged = true;
    }
    for (const CollisionEvent& e : w.collisions())
      if (!e.with_obstacle && ((e.a == mover && e.b == enemy) || (e.a == enemy && e.b == mover)))
        hit = true;
    if (hit && a.behaviour.phase == Phase::advance) left_after = true;
    if (a.state == MoveState::arrived) break;
  }
  EXPECT_TRUE(engaged);
  EXPECT_TRUE(hit);
  EXPECT_TRUE(left_after);
  const Agent& a = *w.find(mover);
  EXPECT_EQ(a.state, MoveState::arrived);
  EXPECT_LT(length(a.position - Vec2{700, 300}), 1);
}

// Patrol through two points: out to both, back to the start, and out again.
TEST(PatrolOrder, GoesRoundItsRouteAndComesBackAndOutAgain) {
  World w(open_world());
  const AgentId id = w.apply(grid_of(1, {100, 100}, 0)).spawned.at(0);
  SetTarget go;
  go.agents = {false, {id}};
  go.behaviour = BehaviourKind::patrol;
  go.target = {400, 100};
  go.points = {{400, 400}};
  ASSERT_TRUE(w.apply(go).ok());
  EXPECT_EQ(w.upcoming(id), (std::vector<Vec2>{{400, 400}, {100, 100}}));
  std::vector<Vec2> corners = {{400, 100}, {400, 400}, {100, 100}, {400, 100}};
  std::size_t next = 0;
  for (int t = 0; t < 60 * 30 && next < corners.size(); ++t) {
    w.step();
    if (length(w.find(id)->position - corners[next]) < 1) ++next;
  }
  EXPECT_EQ(next, corners.size());
  EXPECT_EQ(w.find(id)->behaviour.kind, BehaviourKind::patrol);
}

// A world with orders under way saves and restores bit for bit, and goes on the same.
TEST(Orders, CheckpointsCarryThemBitForBit) {
  World w(open_world());
  ASSERT_TRUE(w.apply(grid_of(12, {200, 200}, 20, 1)).ok());
  Spawn enemies;
  enemies.count = 5;
  enemies.group = 2;
  ASSERT_TRUE(w.apply(enemies).ok());
  SetTarget go;
  go.agents = {false};
  go.agents.group = 1;
  go.target = {600, 400};
  go.behaviour = BehaviourKind::attack_move;
  ASSERT_TRUE(w.apply(go).ok());
  go.queue = true;
  go.behaviour = BehaviourKind::patrol;
  go.target = {200, 500};
  go.points = {{100, 100}};
  go.spread = Spread::point;
  ASSERT_TRUE(w.apply(go).ok());
  for (int t = 0; t < 200; ++t) w.step();
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& r = std::get<World>(loaded);
  EXPECT_EQ(r.state_hash(), w.state_hash());
  for (int t = 0; t < 600; ++t) {
    w.step();
    r.step();
  }
  EXPECT_EQ(r.state_hash(), w.state_hash());
  for (const Agent& a : w.agents()) EXPECT_EQ(r.upcoming(a.id), w.upcoming(a.id));
}

TEST(Orders, BadOrdersChangeNothing) {
  World w(open_world());
  ASSERT_TRUE(w.apply(grid_of(4, {200, 200}, 20)).ok());
  const std::uint64_t before = w.state_hash();
  SetTarget go;
  go.agents = {true};
  go.target = {900, 100};
  EXPECT_EQ(w.apply(go).error, CommandError::out_of_bounds);
  go.target = {100, 100};
  go.behaviour = BehaviourKind::patrol;
  go.points = {{100, 100}, {-5, 3}};
  EXPECT_EQ(w.apply(go).error, CommandError::out_of_bounds);
  go.points.assign(64, Vec2{100, 100});
  EXPECT_EQ(w.apply(go).error, CommandError::limit_exceeded);
  EXPECT_EQ(w.apply(Stop{{false, {99}}}).error, CommandError::unknown_agent);
  EXPECT_EQ(w.state_hash(), before);
}

}  // namespace
}  // namespace herd::sim
