// The rest of Reynolds' catalogue, each held to a property that can fail: wander's speed and
// turn rate are bounded and its path repeats from the same seed; a flock from random headings
// lines up without a collision; a path is followed within its radius, point by point, round when
// it loops; a follower keeps its place behind a moving leader and stops without overshoot; a queue
// never runs into the slower agent ahead. All of it survives a checkpoint bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "herd/sim/world.hpp"
#include "world_access.hpp"

namespace herd::sim {
namespace {

constexpr double kPi = 3.14159265358979323846;

WorldDef open_world(double width = 1000, double height = 1000, std::uint64_t seed = 7) {
  WorldDef d;
  d.width = width;
  d.height = height;
  d.seed = seed;
  return d;
}

SpawnAgent agent_at(Vec2 position, std::uint8_t group = 0) {
  SpawnAgent a;
  a.position = position;
  a.group = group;
  return a;
}

AgentId spawn_one(World& w, Vec2 position, std::uint8_t group = 0) {
  Spawn s;
  s.agents.push_back(agent_at(position, group));
  const CommandOutcome out = w.apply(s);
  EXPECT_TRUE(out.ok()) << out.message;
  return out.spawned.at(0);
}

SetBehaviour behaviour_of(Selection agents, BehaviourKind kind) {
  SetBehaviour c;
  c.agents = std::move(agents);
  c.behaviour.kind = kind;
  return c;
}

// The distance from p to the polyline (closed when loop).
double distance_to_path(Vec2 p, const std::vector<Vec2>& path, bool loop) {
  double best = HUGE_VAL;
  const std::size_t legs = loop ? path.size() : path.size() - 1;
  for (std::size_t k = 0; k < legs; ++k) {
    const Vec2 a = path[k], b = path[(k + 1) % path.size()];
    const Vec2 ab = b - a;
    const double t = std::clamp(dot(p - a, ab) / length_squared(ab), 0.0, 1.0);
    best = std::min(best, length(p - (a + ab * t)));
  }
  return best;
}

// ---- wander ------------------------------------------------------------------------------------

std::vector<Vec2> wander_path(std::uint64_t seed, std::size_t ticks, double* max_speed_seen,
                              double* max_turn_excess) {
  World w(open_world(1000, 1000, seed));
  const AgentId id = spawn_one(w, {500, 500});
  EXPECT_TRUE(w.apply(behaviour_of({false, {id}}, BehaviourKind::wander)).ok());
  std::vector<Vec2> path;
  Vec2 last_velocity{};
  const AgentDef& def = w.find(id)->def;
  const double accel = def.max_force / def.mass;
  for (std::size_t t = 0; t < ticks; ++t) {
    w.step();
    const Agent& a = *w.find(id);
    path.push_back(a.position);
    *max_speed_seen = std::max(*max_speed_seen, length(a.velocity));
    // Turn rate: the heading turns no faster than the acceleration over the speed allows.
    const double before = length(last_velocity), now = length(a.velocity);
    if (before > 1 && now > 1) {
      const double cosine = std::clamp(dot(last_velocity, a.velocity) / (before * now), -1.0, 1.0);
      const double turn = std::acos(cosine);
      const double bound = accel * w.def().dt / std::min(before, now);
      *max_turn_excess = std::max(*max_turn_excess, turn - bound);
    }
    last_velocity = a.velocity;
  }
  return path;
}

TEST(Wander, SpeedAndTurnRateAreBoundedAndTheSameSeedWalksTheSamePath) {
  double speed = 0, excess = -HUGE_VAL;
  const std::vector<Vec2> first = wander_path(11, 1200, &speed, &excess);
  EXPECT_LE(speed, AgentDef{}.max_speed + 1e-9);
  EXPECT_LE(excess, 1e-6) << "turned faster than its acceleration allows";
  double speed2 = 0, excess2 = -HUGE_VAL;
  EXPECT_EQ(wander_path(11, 1200, &speed2, &excess2), first);
  const std::vector<Vec2> other = wander_path(12, 1200, &speed2, &excess2);
  EXPECT_NE(other, first) << "another seed wanders another way";
  // It wanders: neither standing nor going straight. The path's end is well short of the distance
  // walked, and it stays in the world.
  double walked = 0;
  for (std::size_t k = 1; k < first.size(); ++k) walked += length(first[k] - first[k - 1]);
  EXPECT_GT(walked, 0.8 * AgentDef{}.max_speed * 1200 / 60.0);
  EXPECT_LT(length(first.back() - first.front()), 0.9 * walked);
  for (Vec2 p : first) {
    EXPECT_GE(p.x, 0);
    EXPECT_LE(p.x, 1000);
    EXPECT_GE(p.y, 0);
    EXPECT_LE(p.y, 1000);
  }
}

// ---- flock -------------------------------------------------------------------------------------

double polarisation(const World& w) {
  Vec2 sum{};
  std::size_t n = 0;
  for (const Agent& a : w.agents()) {
    const double s = length(a.velocity);
    if (s <= 0) continue;
    sum += a.velocity * (1.0 / s);
    ++n;
  }
  return n == 0 ? 0 : length(sum) / static_cast<double>(n);
}

TEST(Flock, FromRandomHeadingsLinesUpWithinTwentySecondsWithoutACollision) {
  World w(open_world(2000, 2000, 3));
  // 300 boids on a grid six radii apart, each with a random heading of its own.
  Spawn s;
  for (int k = 0; k < 300; ++k)
    s.agents.push_back(agent_at({1000 + (k % 20 - 9.5) * 48.0, 1000 + (k / 20 - 7.0) * 48.0}, 1));
  ASSERT_TRUE(w.apply(s).ok());
  SetBehaviour flock = behaviour_of({true}, BehaviourKind::flock);
  ASSERT_TRUE(w.apply(flock).ok());
  EXPECT_LT(polarisation(w), 0.3) << "the headings start random";
  std::size_t collisions = 0;
  double best = 0, reached_at = HUGE_VAL;
  for (int t = 0; t < 20 * 60; ++t) {
    w.step();
    collisions += w.collisions().size();
    const double p = polarisation(w);
    best = std::max(best, p);
    if (p > 0.9 && reached_at == HUGE_VAL) reached_at = w.time();
  }
  EXPECT_GT(best, 0.9);
  EXPECT_LE(reached_at, 20.0);
  EXPECT_EQ(collisions, 0u);
}

TEST(Flock, ATravellingFlockGoesToItsTarget) {
  World w(open_world(2000, 2000, 3));
  Spawn s;
  for (int k = 0; k < 50; ++k)
    s.agents.push_back(agent_at({400 + (k % 10) * 32.0, 400 + (k / 10) * 32.0}, 2));
  ASSERT_TRUE(w.apply(s).ok());
  SetBehaviour flock = behaviour_of({true}, BehaviourKind::flock);
  flock.behaviour.point = {1500, 1500};
  flock.params.has_target = true;
  ASSERT_TRUE(w.apply(flock).ok());
  for (int t = 0; t < 15 * 60; ++t) w.step();
  Vec2 centre{};
  for (const Agent& a : w.agents()) centre += a.position * (1.0 / 50);
  EXPECT_LT(length(centre - Vec2{1500, 1500}), 300) << centre.x << ", " << centre.y;
}

// A flocker with a radius that takes in the whole world heeds its 64 nearest mates, as starlings
// heed their nearest few: a crowd of its group far away, on one side or the other, changes
// nothing (before, it pulled the flocker across the world, and every flocker read every agent).
TEST(Flock, AHugeRadiusHeedsTheNearestMatesNotTheWholeWorld) {
  const auto run = [](double crowd_x) {
    World w(open_world(4000, 4000, 5));
    Spawn s;
    s.agents.push_back(agent_at({2000, 2000}, 1));
    // 64 mates round it in three rings, all nearer than the default radius (15 radii).
    const std::pair<int, double> rings[] = {{16, 40}, {24, 70}, {24, 100}};
    for (const auto& [n, r] : rings)
      for (int k = 0; k < n; ++k)
        s.agents.push_back(agent_at(
            Vec2{2000, 2000} + Vec2{std::cos(2 * kPi * k / n), std::sin(2 * kPi * k / n)} * r, 1));
    for (int k = 0; k < 1024; ++k)
      s.agents.push_back(
          agent_at({crowd_x + (k % 32 - 15.5) * 20.0, 2000 + (k / 32 - 15.5) * 20.0}, 1));
    EXPECT_TRUE(w.apply(s).ok());
    SetBehaviour flock = behaviour_of({false, {1}}, BehaviourKind::flock);
    flock.behaviour.radius = 1e9;
    EXPECT_TRUE(w.apply(flock).ok());
    for (int t = 0; t < 2 * 60; ++t) w.step();
    return w.find(1)->position;
  };
  const Vec2 east = run(3500), west = run(500);
  EXPECT_EQ(east, west) << "east " << east.x << ", " << east.y << "; west " << west.x << ", "
                        << west.y;
  EXPECT_LT(length(east - Vec2{2000, 2000}), 100) << "it stays among its nearest mates";
}

// ---- follow_path -------------------------------------------------------------------------------

struct PathRun {
  std::vector<std::size_t> visits;  // the path points it came within the radius of, in order
  double worst = 0;                 // farthest from the path once on it
  Vec2 end;
  MoveState state = MoveState::idle;
};

PathRun follow(const std::vector<Vec2>& path, double radius, bool loop, int seconds) {
  World w(open_world());
  const AgentId id = spawn_one(w, path.front());
  SetBehaviour c = behaviour_of({false, {id}}, BehaviourKind::follow_path);
  c.behaviour.radius = radius;
  c.params.path = path;
  c.params.loop = loop;
  const CommandOutcome out = w.apply(c);
  EXPECT_TRUE(out.ok()) << out.message;
  PathRun run;
  run.visits.push_back(0);
  for (int t = 0; t < seconds * 60; ++t) {
    w.step();
    const Agent& a = *w.find(id);
    run.worst = std::max(run.worst, distance_to_path(a.position, path, loop));
    const std::size_t next = (run.visits.back() + 1) % path.size();
    if (length(a.position - path[next]) <= radius) run.visits.push_back(next);
  }
  run.end = w.find(id)->position;
  run.state = w.find(id)->state;
  return run;
}

TEST(FollowPath, StaysWithinItsRadiusAndVisitsEveryPointInOrderThenStops) {
  const std::vector<Vec2> zigzag = {{100, 100}, {700, 120}, {650, 500}, {150, 450}, {400, 850}};
  const PathRun run = follow(zigzag, 20, false, 40);
  EXPECT_LE(run.worst, 20.0);
  ASSERT_GE(run.visits.size(), zigzag.size());
  for (std::size_t k = 0; k < zigzag.size(); ++k) EXPECT_EQ(run.visits[k], k);
  EXPECT_EQ(run.visits.size(), zigzag.size()) << "once: it does not go round";
  EXPECT_LT(length(run.end - zigzag.back()), 1.0);
  EXPECT_EQ(run.state, MoveState::arrived);
}

TEST(FollowPath, ALoopGoesRoundAndRound) {
  const std::vector<Vec2> square = {{200, 200}, {800, 200}, {800, 800}, {200, 800}};
  const PathRun run = follow(square, 30, true, 60);  // a lap is 2,400 units: 20 s at full speed
  EXPECT_LE(run.worst, 30.0);
  ASSERT_GE(run.visits.size(), 9u) << "two laps at least";
  for (std::size_t k = 0; k < run.visits.size(); ++k) EXPECT_EQ(run.visits[k], k % 4);
  EXPECT_EQ(run.state, MoveState::moving);
}

TEST(FollowPath, RefusesAPointOutsideTheWorldAndChangesNothing) {
  World w(open_world());
  const AgentId id = spawn_one(w, {100, 100});
  const std::uint64_t before = w.state_hash();
  SetBehaviour c = behaviour_of({false, {id}}, BehaviourKind::follow_path);
  c.params.path = {{100, 100}, {2000, 100}};
  EXPECT_EQ(w.apply(c).error, CommandError::out_of_bounds);
  c.params.path = {{100, 100}};
  EXPECT_NE(w.apply(c).error, CommandError::none);
  EXPECT_EQ(w.state_hash(), before);
}

// ---- follow ------------------------------------------------------------------------------------

TEST(Follow, KeepsItsPlaceBehindAMovingLeaderAndStopsWithoutOvershoot) {
  World w(open_world(2000, 1000));
  const AgentId leader = spawn_one(w, {200, 500});
  const AgentId follower = spawn_one(w, {150, 540});
  SetBehaviour f = behaviour_of({false, {follower}}, BehaviourKind::follow);
  f.behaviour.agent = leader;
  f.params.offset = {-40, 20};
  f.params.has_offset = true;
  ASSERT_TRUE(w.apply(f).ok());
  SetBehaviour go = behaviour_of({false, {leader}}, BehaviourKind::arrive);
  go.behaviour.point = {1600, 500};
  ASSERT_TRUE(w.apply(go).ok());
  double worst_while_moving = 0, farthest_past = 0;
  for (int t = 0; t < 25 * 60; ++t) {
    w.step();
    const Agent& l = *w.find(leader);
    const Agent& a = *w.find(follower);
    const Vec2 place = l.position + Vec2{-40, 20};  // the leader heads along +x
    if (w.time() > 3 && length(l.velocity) > 10)
      worst_while_moving = std::max(worst_while_moving, length(a.position - place));
    farthest_past = std::max(farthest_past, a.position.x - (1600 - 40));
  }
  EXPECT_LE(worst_while_moving, 2 * AgentDef{}.radius) << "kept within two radii of its place";
  EXPECT_LE(farthest_past, 0.5) << "no overshoot past its final place";
  const Agent& a = *w.find(follower);
  EXPECT_LT(length(a.position - Vec2{1560, 520}), 1.0);
  EXPECT_EQ(a.state, MoveState::arrived);
}

TEST(Follow, AGroupTakesPlacesInABlockBehindTheLeader) {
  World w(open_world(2000, 1000));
  const AgentId leader = spawn_one(w, {300, 500});
  Spawn s;
  for (int k = 0; k < 9; ++k)
    s.agents.push_back(agent_at({100 + (k % 3) * 30.0, 450 + (k / 3) * 40.0}));
  const CommandOutcome spawned = w.apply(s);
  ASSERT_TRUE(spawned.ok());
  SetBehaviour f = behaviour_of({false, spawned.spawned}, BehaviourKind::follow);
  f.behaviour.agent = leader;
  ASSERT_TRUE(w.apply(f).ok());
  SetBehaviour go = behaviour_of({false, {leader}}, BehaviourKind::arrive);
  go.behaviour.point = {1500, 500};
  ASSERT_TRUE(w.apply(go).ok());
  std::size_t collisions = 0;
  for (int t = 0; t < 20 * 60; ++t) {
    w.step();
    collisions += w.collisions().size();
  }
  // Every follower stopped behind the leader, none on top of another.
  for (AgentId id : spawned.spawned) {
    const Agent& a = *w.find(id);
    EXPECT_EQ(a.state, MoveState::arrived) << id;
    EXPECT_LT(a.position.x, 1500 - 8);
    for (AgentId other : spawned.spawned) {
      if (other != id) EXPECT_GE(length(w.find(other)->position - a.position), 2 * 8.0 - 1e-6);
    }
  }
  EXPECT_EQ(collisions, 0u);
}

TEST(Follow, NeedsALeaderThatExistsAndIsNotItself) {
  World w(open_world());
  const AgentId id = spawn_one(w, {100, 100});
  SetBehaviour f = behaviour_of({false, {id}}, BehaviourKind::follow);
  EXPECT_EQ(w.apply(f).error, CommandError::invalid_target);
  f.behaviour.agent = id;
  EXPECT_EQ(w.apply(f).error, CommandError::invalid_target);
  f.behaviour.agent = 99;
  EXPECT_EQ(w.apply(f).error, CommandError::unknown_agent);
}

// ---- queue -------------------------------------------------------------------------------------

TEST(Queue, ALineBehindASlowLeaderNeverRunsIntoIt) {
  World w(open_world(2000, 400));
  Spawn s;
  for (int k = 0; k < 8; ++k) s.agents.push_back(agent_at({500 - k * 30.0, 200}));
  s.agents[0].max_speed = 30;  // the slow one in front
  const CommandOutcome spawned = w.apply(s);
  ASSERT_TRUE(spawned.ok());
  SetBehaviour q = behaviour_of({true}, BehaviourKind::queue);
  q.behaviour.point = {1900, 200};
  ASSERT_TRUE(w.apply(q).ok());
  std::size_t collisions = 0;
  double closest = HUGE_VAL;
  for (int t = 0; t < 10 * 60; ++t) {  // short of the target, where they would crowd
    w.step();
    collisions += w.collisions().size();
    const auto agents = w.agents();
    for (std::size_t k = 0; k < agents.size(); ++k)
      for (std::size_t m = k + 1; m < agents.size(); ++m)
        closest = std::min(closest, length(agents[k].position - agents[m].position));
  }
  EXPECT_EQ(collisions, 0u);
  EXPECT_GT(closest, 16.0);
  // They kept moving, behind it or round it: none was left standing.
  for (const Agent& a : w.agents()) EXPECT_GT(a.position.x, 500 - 7 * 30 + 200) << a.id;
}

// ---- checkpoints -------------------------------------------------------------------------------

TEST(Catalogue, ARestoredWorldGoesOnBitForBit) {
  World w(open_world(1500, 1500, 5));
  Spawn s;
  for (int k = 0; k < 40; ++k)
    s.agents.push_back(agent_at({300 + (k % 8) * 40.0, 300 + (k / 8) * 40.0}, k < 20 ? 1 : 2));
  const CommandOutcome spawned = w.apply(s);
  ASSERT_TRUE(spawned.ok());
  const std::vector<AgentId>& ids = spawned.spawned;
  Selection flockers{false, {ids.begin(), ids.begin() + 20}};
  ASSERT_TRUE(w.apply(behaviour_of(flockers, BehaviourKind::flock)).ok());
  ASSERT_TRUE(w.apply(behaviour_of({false, {ids[20], ids[21]}}, BehaviourKind::wander)).ok());
  SetBehaviour path = behaviour_of({false, {ids[22]}}, BehaviourKind::follow_path);
  path.params.path = {{100, 100}, {1400, 100}, {1400, 1400}};
  path.params.loop = true;
  ASSERT_TRUE(w.apply(path).ok());
  SetBehaviour f =
      behaviour_of({false, {ids.begin() + 23, ids.begin() + 30}}, BehaviourKind::follow);
  f.behaviour.agent = ids[22];
  ASSERT_TRUE(w.apply(f).ok());
  SetBehaviour q = behaviour_of({false, {ids.begin() + 30, ids.end()}}, BehaviourKind::queue);
  q.behaviour.point = {1200, 1200};
  ASSERT_TRUE(w.apply(q).ok());
  for (int t = 0; t < 120; ++t) w.step();
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& restored = std::get<World>(loaded);
  EXPECT_EQ(restored.state_hash(), w.state_hash());
  for (int t = 0; t < 300; ++t) {
    w.step();
    restored.step();
  }
  EXPECT_EQ(restored.state_hash(), w.state_hash());
  // And a steered agent set to something else forgets its steering.
  ASSERT_TRUE(w.apply(behaviour_of(flockers, BehaviourKind::idle)).ok());
  w.step();
  EXPECT_NE(w.state_hash(), restored.state_hash());
}

// One command's path is one path: a checkpoint holds it once however many agents follow it
// (before, once per agent: 1,024 points on 20,000 agents were 335 MB), and a checkpoint of the
// format before, with a copy per agent, is still read, its copies shared again.
TEST(Catalogue, OneCommandsPathIsCheckpointedOnce) {
  World w(open_world(1000, 1000, 5));
  Spawn s;
  s.count = 500;
  ASSERT_TRUE(w.apply(s).ok());
  SetBehaviour path = behaviour_of({true}, BehaviourKind::follow_path);
  for (int k = 0; k < 1024; ++k)
    path.params.path.push_back({100 + (k % 32) * 25.0, 100 + (k / 32) * 25.0});
  ASSERT_TRUE(w.apply(path).ok());
  for (int t = 0; t < 30; ++t) w.step();
  const std::size_t path_bytes = 1024 * 16;
  const std::string now = w.save_checkpoint();
  const std::string before = checkpoint_in_format(w, 15);
  EXPECT_LT(now.size(), path_bytes + 500 * 400) << "the path once, and each agent's state";
  EXPECT_GT(before.size(), 500 * path_bytes) << "format 15: a copy per agent";
  for (const std::string& file : {now, before}) {
    auto loaded = World::load_checkpoint(file);
    ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
    World& restored = std::get<World>(loaded);
    EXPECT_EQ(restored.state_hash(), w.state_hash());
    EXPECT_EQ(restored.save_checkpoint(), now) << "saved again, the path once";
    World again = std::move(restored);
    World original = std::move(std::get<World>(World::load_checkpoint(now)));
    for (int t = 0; t < 60; ++t) {
      again.step();
      original.step();
    }
    EXPECT_EQ(again.state_hash(), original.state_hash());
  }
}

}  // namespace
}  // namespace herd::sim
