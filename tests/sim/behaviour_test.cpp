// Behaviours (the attack action, flee, pursuit with intercept, switching on distance), each alone,
// and in a world.
#include "behaviour.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

constexpr double kDt = 1.0 / 60;

// The behaviours' table decides who heads for its subject (a target, never an obstacle) and who
// has arrived by touching it: seek, arrive and pursue always, attack while it approaches, react as
// its response while it responds.
TEST(BehaviourTable, SaysWhoHeadsForItsSubjectAndWhoCatchesItByContact) {
  auto b = [](BehaviourKind kind, Phase phase = Phase::none,
              BehaviourKind response = BehaviourKind::pursue) {
    Behaviour out;
    out.kind = kind;
    out.phase = phase;
    out.response = response;
    return out;
  };
  for (BehaviourKind k : {BehaviourKind::seek, BehaviourKind::arrive, BehaviourKind::pursue})
    EXPECT_TRUE(heads_for_subject(b(k))) << traits(k).name;
  for (BehaviourKind k :
       {BehaviourKind::idle, BehaviourKind::hold, BehaviourKind::flee, BehaviourKind::evade})
    EXPECT_FALSE(heads_for_subject(b(k))) << traits(k).name;
  EXPECT_TRUE(heads_for_subject(b(BehaviourKind::attack, Phase::approach)));
  EXPECT_FALSE(heads_for_subject(b(BehaviourKind::attack, Phase::retreat)));
  EXPECT_FALSE(heads_for_subject(b(BehaviourKind::attack, Phase::done)));
  EXPECT_TRUE(heads_for_subject(b(BehaviourKind::react, Phase::respond, BehaviourKind::pursue)));
  EXPECT_FALSE(heads_for_subject(b(BehaviourKind::react, Phase::respond, BehaviourKind::evade)));
  EXPECT_FALSE(heads_for_subject(b(BehaviourKind::react, Phase::home, BehaviourKind::pursue)));
  EXPECT_TRUE(acting_traits(b(BehaviourKind::pursue)).catches_by_contact);
  EXPECT_TRUE(acting_traits(b(BehaviourKind::react, Phase::respond, BehaviourKind::pursue))
                  .catches_by_contact);
  EXPECT_FALSE(acting_traits(b(BehaviourKind::react, Phase::home, BehaviourKind::pursue))
                   .catches_by_contact);
  EXPECT_FALSE(acting_traits(b(BehaviourKind::attack, Phase::approach)).catches_by_contact);
  EXPECT_FALSE(acting_traits(b(BehaviourKind::arrive)).catches_by_contact);
}

TEST(Flee, AwayAtFullSpeedAndDefinedOnTopOfTheThreat) {
  const Vec2 v = flee_desired_velocity({10, 0}, {0, 0}, 50);
  EXPECT_NEAR(v.x, 50, 1e-12);
  EXPECT_EQ(flee_desired_velocity({3, 3}, {3, 3}, 50), (Vec2{50, 0}));
}

TEST(Pursue, MatchesVelocityAtContactAndLeadsAMovingTarget) {
  // In contact: keep pace, do not ram.
  const Vec2 pace = pursue_desired_velocity({0, 0}, {0, 0}, {16, 0}, {30, 40}, 400, 120, kDt, 16);
  EXPECT_NEAR(pace.x, 30, 1e-12);
  EXPECT_NEAR(pace.y, 40, 1e-12);
  // A target crossing ahead: the pursuit leads it (aims at where it goes, not where it is).
  const Vec2 lead = pursue_desired_velocity({0, 0}, {0, 0}, {100, 0}, {0, 60}, 400, 120, kDt);
  EXPECT_GT(lead.y, 10);
  EXPECT_LE(length(lead), 120 + 1e-9);
  // Far away and closing fast: full speed at most.
  EXPECT_LE(length(pursue_desired_velocity({0, 0}, {100, 0}, {5000, 0}, {0, 0}, 400, 120, kDt)),
            120 + 1e-9);
  const Vec2 same = pursue_desired_velocity({1, 1}, {0, 0}, {1, 1}, {0, 0}, 400, 120, kDt);
  EXPECT_TRUE(std::isfinite(same.x) && std::isfinite(same.y));
}

TEST(Evade, FleesWhereTheThreatWillBe) {
  const Vec2 from = evade_from({0, 0}, {0, 0}, {100, 0}, {0, 50});
  EXPECT_NEAR(from.x, 100, 1e-12);
  EXPECT_GT(from.y, 50);
  EXPECT_LE(from.y, 50 * kEvadeHorizon + 1e-9);
}

struct Sandbox {
  World world;
  explicit Sandbox(double width = 800, double height = 600)
      : world([&] {
          WorldDef d;
          d.width = width;
          d.height = height;
          return d;
        }()) {}
  AgentId add(Vec2 p, std::optional<double> max_speed = {}) {
    SpawnAgent s;
    s.position = p;
    s.max_speed = max_speed;
    return world.apply(Spawn{0, 0, {s}}).spawned.at(0);
  }
  void behave(AgentId who, Behaviour b) {
    ASSERT_TRUE(world.apply(SetBehaviour{{false, {who}}, b, false, {}, {}}).ok());
  }
  const Agent& agent(AgentId id) { return *world.find(id); }
};

TEST(Attack, ApproachHitRetreatAndHoldAtHome) {
  Sandbox s;
  const AgentId hero = s.add({100, 300});
  const AgentId enemy = s.add({500, 300});
  Behaviour attack;
  attack.kind = BehaviourKind::attack;
  attack.agent = enemy;
  s.behave(hero, attack);
  EXPECT_EQ(s.agent(hero).behaviour.phase, Phase::approach);
  std::vector<Phase> phases{Phase::approach};
  int hits = 0;
  for (int t = 0; t < 60 * 20 && phases.back() != Phase::done; ++t) {
    s.world.step();
    for (const CollisionEvent& e : s.world.collisions()) hits += (e.a == hero && e.b == enemy);
    if (s.agent(hero).behaviour.phase != phases.back())
      phases.push_back(s.agent(hero).behaviour.phase);
  }
  EXPECT_EQ(phases, (std::vector<Phase>{Phase::approach, Phase::retreat, Phase::done}));
  EXPECT_EQ(hits, 1);
  EXPECT_LE(length(s.agent(hero).position - Vec2{100, 300}), s.agent(hero).def.arrive_tolerance);
  EXPECT_EQ(s.agent(hero).state, MoveState::arrived);
  EXPECT_GT(length(s.agent(enemy).velocity) + length(s.agent(enemy).position - Vec2{500, 300}), 1.0)
      << "a body-slam moves the enemy";
}

// Patrol: out to the point, back to where it was when commanded, and again, without end; a
// checkpoint taken on the way back goes on exactly as the world it came from.
TEST(Patrol, GoesOutAndBackForeverAndSurvivesACheckpoint) {
  Sandbox s;
  const AgentId walker = s.add({100, 300});
  Behaviour patrol;
  patrol.kind = BehaviourKind::patrol;
  patrol.point = {500, 300};
  s.behave(walker, patrol);
  EXPECT_EQ(s.agent(walker).behaviour.phase, Phase::out);
  EXPECT_EQ(s.agent(walker).state, MoveState::moving);
  std::vector<Phase> phases{Phase::out};
  double nearest_far = 1e9, nearest_home = 1e9;
  std::string checkpoint;
  for (int t = 0; t < 60 * 30 && phases.size() < 5; ++t) {
    s.world.step();
    const Agent& a = s.agent(walker);
    if (a.behaviour.phase != phases.back()) {
      phases.push_back(a.behaviour.phase);
      if (phases.size() == 2) checkpoint = s.world.save_checkpoint();
    }
    nearest_far = std::min(nearest_far, length(a.position - Vec2{500, 300}));
    nearest_home = std::min(nearest_home, length(a.position - Vec2{100, 300}));
  }
  EXPECT_EQ(phases,
            (std::vector<Phase>{Phase::out, Phase::back, Phase::out, Phase::back, Phase::out}));
  EXPECT_LE(nearest_far, s.agent(walker).def.arrive_tolerance) << "it reaches the point";
  EXPECT_LE(nearest_home, s.agent(walker).def.arrive_tolerance) << "and comes back home";

  ASSERT_FALSE(checkpoint.empty());
  auto loaded = World::load_checkpoint(checkpoint);
  ASSERT_TRUE(std::holds_alternative<World>(loaded)) << std::get<std::string>(loaded);
  World& restored = std::get<World>(loaded);
  EXPECT_EQ(restored.find(walker)->behaviour.phase, Phase::back);
  EXPECT_EQ(restored.find(walker)->behaviour.home, (Vec2{100, 300}));
  Sandbox again;
  again.add({100, 300});
  again.behave(walker, patrol);
  for (int t = 0; t < 60 * 30 && again.world.state_hash() != restored.state_hash(); ++t)
    again.world.step();
  ASSERT_EQ(again.world.state_hash(), restored.state_hash());
  for (int t = 0; t < 300; ++t) {
    again.world.step();
    restored.step();
  }
  EXPECT_EQ(again.world.state_hash(), restored.state_hash()) << "the patrol goes on the same";
}

// A patrol needs its point; it is refused whole without one.
TEST(Patrol, NeedsAPointInsideTheWorld) {
  Sandbox s;
  const AgentId walker = s.add({100, 300});
  Behaviour patrol;
  patrol.kind = BehaviourKind::patrol;
  patrol.point = {5000, 300};
  const CommandOutcome out = s.world.apply(SetBehaviour{{false, {walker}}, patrol, false, {}, {}});
  EXPECT_EQ(out.error, CommandError::out_of_bounds);
  EXPECT_EQ(s.agent(walker).behaviour.kind, BehaviourKind::idle);
}

TEST(React, ChasesWithinTheRadiusAndGoesHomeOtherwise) {
  Sandbox s(3000, 600);
  // Distance is measured from the guard (as in the "Seeking and Fleeing" tutorial: between enemy
  // and player), so a guard that can keep up never lets go; this one is slower than the intruder.
  const AgentId guard = s.add({1500, 300}, 50.0);
  const AgentId intruder = s.add({1000, 300}, 80.0);
  Behaviour react;
  react.kind = BehaviourKind::react;
  react.agent = intruder;
  react.radius = 150;
  react.response = BehaviourKind::pursue;
  s.behave(guard, react);
  s.world.step();
  EXPECT_EQ(s.agent(guard).behaviour.phase, Phase::home);
  // The intruder comes within range and stops: the guard goes for it...
  Behaviour walk;
  walk.kind = BehaviourKind::arrive;
  walk.point = {1420, 300};
  s.behave(intruder, walk);
  double furthest = 0;
  bool responded = false;
  for (int t = 0; t < 60 * 8; ++t) {
    s.world.step();
    responded = responded || s.agent(guard).behaviour.phase == Phase::respond;
    furthest = std::max(furthest, length(s.agent(guard).position - Vec2{1500, 300}));
  }
  EXPECT_TRUE(responded);
  EXPECT_GT(furthest, 30);
  // ...and runs away, faster than the guard: the guard gives up and walks back to its post.
  walk.point = {40, 300};
  s.behave(intruder, walk);
  for (int t = 0; t < 60 * 30; ++t) s.world.step();
  EXPECT_EQ(s.agent(guard).behaviour.phase, Phase::home);
  EXPECT_EQ(s.agent(guard).state, MoveState::arrived);
  EXPECT_LE(length(s.agent(guard).position - Vec2{1500, 300}), 0.05);
}

TEST(React, AGuardThatCatchesItsIntruderHasArrived) {
  Sandbox s;
  const AgentId guard = s.add({400, 300});
  const AgentId intruder = s.add({460, 300});  // standing still, within reach
  Behaviour react;
  react.kind = BehaviourKind::react;
  react.agent = intruder;
  react.radius = 150;
  react.response = BehaviourKind::pursue;
  s.behave(guard, react);
  bool touched = false;
  for (int t = 0; t < 60 * 3 && !touched; ++t) {
    s.world.step();
    const double gap = length(s.agent(intruder).position - s.agent(guard).position) - 16;
    touched = gap <= s.agent(guard).def.arrive_tolerance;
    if (!touched) EXPECT_EQ(s.agent(guard).state, MoveState::moving) << "tick " << t;
  }
  ASSERT_TRUE(touched);
  EXPECT_EQ(s.agent(guard).behaviour.phase, Phase::respond);
  EXPECT_EQ(s.agent(guard).state, MoveState::arrived)
      << "in contact the pursuit is over, as for pursue";
}

TEST(Evade, FleesWhereThePursuerWillBeOnlyWithinTheRadius) {
  Sandbox s(2000, 600);
  const AgentId runner = s.add({1000, 300}, 160.0);  // faster than the hunter (120)
  const AgentId hunter = s.add({700, 200});
  Behaviour evade;
  evade.kind = BehaviourKind::evade;
  evade.agent = hunter;
  evade.radius = 200;
  s.behave(runner, evade);
  // Out of the radius: the runner stays put.
  for (int t = 0; t < 30; ++t) s.world.step();
  EXPECT_LE(length(s.agent(runner).position - Vec2{1000, 300}), 1e-9);
  // The hunter comes at it moving down and right: the runner flees the point the hunter is heading
  // for, not where it is, so it gains distance and ends up further along the hunter's path's side.
  Behaviour chase;
  chase.kind = BehaviourKind::pursue;
  chase.agent = runner;
  s.behave(hunter, chase);
  double closest = 1e9;
  bool moved = false;
  for (int t = 0; t < 60 * 4; ++t) {
    s.world.step();
    closest = std::min(closest, length(s.agent(runner).position - s.agent(hunter).position));
    moved = moved || length(s.agent(runner).velocity) > 1;
  }
  EXPECT_TRUE(moved) << "within the radius it flees";
  EXPECT_GT(closest, 16) << "a faster evader is never caught";
  EXPECT_GT(s.agent(runner).position.x, 1000) << "away from the hunter";
  // evade_from for a threat coming straight at the agent: halfway along its path, never the
  // agent's own position (from which no direction leads away).
  const Vec2 from = evade_from({120, 0}, {0, 0}, {0, 0}, {60, 0});
  EXPECT_NEAR(from.x, 60, 1e-9);
  EXPECT_NEAR(from.y, 0, 1e-12);
}

TEST(Flee, OnlyWithinTheRadius) {
  Sandbox s;
  const AgentId runner = s.add({400, 300});
  Behaviour flee;
  flee.kind = BehaviourKind::flee;
  flee.point = {300, 300};
  flee.radius = 150;
  s.behave(runner, flee);
  for (int t = 0; t < 60 * 5; ++t) s.world.step();
  const double d = length(s.agent(runner).position - Vec2{300, 300});
  EXPECT_GE(d, 150);
  EXPECT_LT(d, 150 + 20) << "stops fleeing once out of the radius";
}

TEST(Movement, BothModelsStayWithinSpeedAndForce) {
  for (Movement m : {Movement::inertial, Movement::kinematic}) {
    Sandbox s;
    const AgentId a = s.add({100, 100});
    ASSERT_TRUE(s.world.apply(SetMovement{{false, {a}}, m}).ok());
    Behaviour seek;
    seek.kind = BehaviourKind::seek;
    seek.point = {700, 500};
    s.behave(a, seek);
    const double step = s.agent(a).def.max_force / s.agent(a).def.mass * kDt;
    Vec2 prev = s.agent(a).velocity;
    for (int t = 0; t < 60 * 10; ++t) {
      s.world.step();
      const Vec2 v = s.agent(a).velocity;
      ASSERT_LE(length(v), s.agent(a).def.max_speed * (1 + 1e-12));
      if (m == Movement::inertial)
        ASSERT_LE(length(v - prev), step * (1 + 1e-9)) << t;
      else
        ASSERT_LE(std::abs(length(v) - length(prev)), step * (1 + 1e-9)) << t;
      prev = v;
    }
    EXPECT_EQ(s.agent(a).movement, m);
  }
}

TEST(Commands, BehavioursAreValidatedWhole) {
  Sandbox s;
  const AgentId a = s.add({100, 100});
  const auto before = s.world.state_hash();
  Behaviour pursue;
  pursue.kind = BehaviourKind::pursue;
  pursue.agent = a;
  EXPECT_EQ(s.world.apply(SetBehaviour{{false, {a}}, pursue, false, {}, {}}).error,
            CommandError::invalid_target);
  pursue.agent = 99;
  EXPECT_EQ(s.world.apply(SetBehaviour{{false, {a}}, pursue, false, {}, {}}).error,
            CommandError::unknown_agent);
  pursue.agent = kNoAgent;
  EXPECT_EQ(s.world.apply(SetBehaviour{{false, {a}}, pursue, false, {}, {}}).error,
            CommandError::invalid_target);
  Behaviour seek;
  seek.kind = BehaviourKind::seek;
  seek.point = {-5, 0};
  EXPECT_EQ(s.world.apply(SetBehaviour{{false, {a}}, seek, false, {}, {}}).error,
            CommandError::out_of_bounds);
  EXPECT_EQ(s.world.apply(RemoveObstacle{3}).error, CommandError::unknown_obstacle);
  EXPECT_EQ(s.world.apply(AddObstacle{{900, 10}, 5}).error, CommandError::out_of_bounds);
  SetAvoidance bad;
  bad.personal_space = -1;
  EXPECT_EQ(s.world.apply(bad).error, CommandError::out_of_bounds);
  EXPECT_EQ(s.world.state_hash(), before);
}

}  // namespace
}  // namespace herd::sim
