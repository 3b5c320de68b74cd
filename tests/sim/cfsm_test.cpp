// The collision-free speed model (avoidance mode cfsm): speed from the headway to the one ahead
// within a time gap, direction from the neighbours' and the walls' repulsion, standing agents
// that yield to movers and return to their places, and movers that take the place they can reach
// beside those who arrived before them. Pedestrians in metres: radius 0.2 m, 1.34 m/s.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <variant>

#include "herd/sim/world.hpp"
#include "pedestrians.hpp"

namespace herd::sim {
namespace {

World pedestrians(double width = 20, double height = 10) {
  return World(pedestrian_world(width, height));
}

SpawnAgent walker(Vec2 at, std::optional<Vec2> to = std::nullopt) {
  SpawnAgent s;
  s.position = at;
  s.target = to;
  return s;
}

const Agent& agent(const World& w, AgentId id) {
  return *std::find_if(w.agents().begin(), w.agents().end(),
                       [id](const Agent& a) { return a.id == id; });
}

// Alone, a walker takes its full speed at once (a first-order model: no ramp) and arrives.
TEST(Cfsm, ALoneWalkerWalksAtItsSpeedAndArrives) {
  World w = pedestrians();
  ASSERT_TRUE(w.apply(Spawn{0, 0, {walker({2, 5}, Vec2{12, 5})}}).ok());
  w.step();
  EXPECT_NEAR(length(w.agents()[0].velocity), 1.34, 1e-9);
  for (int t = 0; t < 20 * 60 && w.agents()[0].state != MoveState::arrived; ++t) w.step();
  EXPECT_EQ(w.agents()[0].state, MoveState::arrived);
  EXPECT_LE(length(w.agents()[0].position - Vec2{12, 5}), 0.05);
}

// Behind one standing in its lane, a walker's speed is the gap between their discs over the time
// gap: it closes in ever more slowly and never touches.
TEST(Cfsm, AWalkerKeepsTheTimeGapToTheOneAhead) {
  World w = pedestrians();
  SetAvoidance gap;
  gap.time_gap = 1.0;
  ASSERT_TRUE(w.apply(gap).ok());
  ASSERT_TRUE(w.apply(Spawn{0, 0, {walker({2, 5}, Vec2{12, 5}), walker({3, 5})}}).ok());
  w.step();
  const Agent& a = agent(w, 1);
  EXPECT_NEAR(length(a.velocity), 1.0 - 0.4, 1e-6) << "gap 0.6 m over 1 s";
  for (int t = 0; t < 30 * 60; ++t) {
    w.step();
    ASSERT_GT(length(agent(w, 1).position - agent(w, 2).position), 0.4) << "tick " << w.tick();
  }
  EXPECT_LT(length(agent(w, 1).velocity), 0.01);
}

// A row of five people standing at their places 0.8 m apart (gaps of 0.4 m: a body's width, which
// the neighbours' repulsion closes to one walking at them), and one walking through its middle to
// a place 5 m beyond: they step aside, it passes and arrives, and each is back at its place
// (within the arrive tolerance). Told to hold, they keep their places and it cannot pass.
TEST(Cfsm, StandingAgentsYieldToAMoverAndReturnToTheirPlacesUnlessHolding) {
  for (const bool hold : {false, true}) {
    World w = pedestrians();
    std::vector<SpawnAgent> row;
    for (int k = -2; k <= 2; ++k) row.push_back(walker({10, 5 + 0.8 * k}, Vec2{10, 5 + 0.8 * k}));
    ASSERT_TRUE(w.apply(Spawn{0, 0, row}).ok());
    for (int t = 0; t < 60; ++t) w.step();
    if (hold) {
      SetBehaviour h;
      h.agents = Selection(true);
      h.behaviour.kind = BehaviourKind::hold;
      h.hold_here = true;
      ASSERT_TRUE(w.apply(h).ok());
    }
    ASSERT_TRUE(w.apply(Spawn{0, 0, {walker({6, 5.1}, Vec2{15, 5.1})}}).ok());
    const AgentId mover = 6;
    double farthest = 0;
    for (int t = 0; t < 30 * 60; ++t) {
      w.step();
      for (AgentId id = 1; id <= 5; ++id)
        farthest =
            std::max(farthest, length(agent(w, id).position - Vec2{10, 5 + 0.8 * (id - 3.0)}));
    }
    if (hold) {
      EXPECT_LT(agent(w, mover).position.x, 10) << "held places are not given up";
      EXPECT_LT(farthest, 0.01);
      continue;
    }
    EXPECT_EQ(agent(w, mover).state, MoveState::arrived);
    EXPECT_LE(length(agent(w, mover).position - Vec2{15, 5.1}), 0.05);
    EXPECT_GT(farthest, 0.05) << "someone stepped aside";
    for (AgentId id = 1; id <= 5; ++id) {
      const Agent& a = agent(w, id);
      EXPECT_EQ(a.state, MoveState::arrived) << id;
      EXPECT_LE(length(a.position - a.behaviour.point), 0.05) << id;
      EXPECT_LE(length(a.position - Vec2{10, 5 + 0.8 * (id - 3.0)}), 0.4) << id;
    }
  }
}

// A crowd sent to places in a block, the first to arrive standing in the way of the later ones'
// places: each later one takes the place it can reach beside them and stops, instead of pressing
// on for ever (every one arrived, none moving, within a few metres of its own place).
TEST(Cfsm, LaterArrivalsTakeThePlaceTheyCanReachBesideThoseStanding) {
  World w = pedestrians(30, 6);
  std::vector<SpawnAgent> crowd;
  for (int k = 0; k < 30; ++k) {
    const int column = k % 6, row = k / 6;
    // Spawned in reverse: the first to arrive have the nearest places, in the others' way.
    crowd.push_back(
        walker({2 + 0.6 * (5 - column), 1.5 + 0.6 * row}, Vec2{24 + 0.5 * column, 2 + 0.5 * row}));
  }
  ASSERT_TRUE(w.apply(Spawn{0, 0, crowd}).ok());
  for (int t = 0; t < 90 * 60; ++t) w.step();
  for (const Agent& a : w.agents()) {
    EXPECT_EQ(a.state, MoveState::arrived) << a.id;
    EXPECT_EQ(a.velocity, Vec2{}) << a.id;
    EXPECT_GT(a.position.x, 20) << a.id;
  }
}

// The same world and commands give the same world, bit for bit, through a checkpoint too.
TEST(Cfsm, CheckpointsKeepTheModeAndItsParameters) {
  World w = pedestrians();
  SetAvoidance set;
  set.time_gap = 0.8;
  set.repulsion_strength = 6;
  set.repulsion_range = 0.4;
  set.wall_repulsion_strength = 3;
  set.wall_repulsion_range = 0.2;
  ASSERT_TRUE(w.apply(set).ok());
  std::vector<SpawnAgent> crowd;
  for (int k = 0; k < 40; ++k)
    crowd.push_back(walker({1.0 + 0.5 * (k % 8), 2.0 + 0.5 * (k / 8)},
                           Vec2{18.0 - 0.5 * (k % 8), 8.0 - 0.5 * (k / 8)}));
  ASSERT_TRUE(w.apply(Spawn{0, 0, crowd}).ok());
  for (int t = 0; t < 300; ++t) w.step();
  auto loaded = World::load_checkpoint(w.save_checkpoint());
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World restored = std::move(std::get<World>(loaded));
  EXPECT_EQ(restored.def().avoidance, w.def().avoidance);
  for (int t = 0; t < 600; ++t) {
    w.step();
    restored.step();
  }
  EXPECT_EQ(restored.state_hash(), w.state_hash());
}

// Settings out of range are refused with a reason and change nothing.
TEST(Cfsm, ParametersOutOfRangeAreRefused) {
  World w = pedestrians();
  const AvoidanceDef before = w.def().avoidance;
  using Set = void (*)(SetAvoidance&);
  for (Set set :
       {+[](SetAvoidance& s) { s.time_gap = 0.0; }, +[](SetAvoidance& s) { s.time_gap = 11.0; },
        +[](SetAvoidance& s) { s.repulsion_strength = -1.0; },
        +[](SetAvoidance& s) { s.repulsion_range = 0.0; },
        +[](SetAvoidance& s) { s.wall_repulsion_strength = 101.0; },
        +[](SetAvoidance& s) { s.wall_repulsion_range = std::nan(""); }}) {
    SetAvoidance s;
    set(s);
    const CommandOutcome out = w.apply(s);
    EXPECT_FALSE(out.ok());
    EXPECT_EQ(out.error, CommandError::out_of_bounds);
    EXPECT_NE(out.message.find("avoidance"), std::string::npos) << out.message;
    EXPECT_EQ(w.def().avoidance, before);
  }
}

}  // namespace
}  // namespace herd::sim
