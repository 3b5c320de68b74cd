// Seek and arrive (the seek tutorial and its comments), one formula at a time, then in the world.
#include "steering.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "herd/sim/world.hpp"

namespace herd::sim {
namespace {

constexpr double kDt = 1.0 / 60.0;

TEST(SeekDesiredVelocity, PointsAtTargetAtMaxSpeed) {
  const Vec2 v = seek_desired_velocity({10, 10}, {13, 14}, 50);
  EXPECT_NEAR(v.x, 30, 1e-12);  // (3,4)/5 * 50
  EXPECT_NEAR(v.y, 40, 1e-12);
}

TEST(SeekDesiredVelocity, ZeroOnTheTargetInsteadOfNaN) {
  const Vec2 v = seek_desired_velocity({5, 5}, {5, 5}, 50);
  EXPECT_EQ(v, (Vec2{0, 0}));
}

TEST(StoppingSpeed, BrakingFromItStopsWithinTheDistance) {
  for (double a : {10.0, 400.0, 5000.0}) {
    for (double d : {0.01, 1.0, 37.5, 1000.0}) {
      double v = stopping_speed(d, a, kDt);
      ASSERT_GT(v, 0);
      double travelled = v * kDt;
      while (v > 0) {  // semi-implicit Euler, braking at full force
        v = std::max(0.0, v - a * kDt);
        travelled += v * kDt;
      }
      EXPECT_LE(travelled, d * (1 + 1e-9)) << "a=" << a << " d=" << d;
    }
  }
}

TEST(StoppingSpeed, MovingAtItThenBrakingEndsExactlyOnTheSpot) {
  for (double d : {0.001, 0.5, 3.0, 99.9, 5000.0}) {
    const double a = 400;
    double v = stopping_speed(d, a, kDt);
    double travelled = v * kDt;  // this tick, at the stopping speed
    while (v > 0) {
      v = std::max(0.0, v - a * kDt);
      travelled += v * kDt;
    }
    EXPECT_NEAR(travelled, d, 1e-9 * d) << "d=" << d;
  }
  // Never more than covers the distance in one tick.
  EXPECT_NEAR(stopping_speed(0.001, 400, kDt), 0.001 / kDt, 1e-12);
}

TEST(StoppingSpeed, DegenerateInputsGiveZero) {
  EXPECT_EQ(stopping_speed(0, 400, kDt), 0);
  EXPECT_EQ(stopping_speed(-1, 400, kDt), 0);
  EXPECT_EQ(stopping_speed(10, 0, kDt), 0);
}

TEST(ArriveDesiredVelocity, SlowsInsideTheSlowRadius) {
  AgentDef def;
  def.max_speed = 100;
  def.slow_radius = 50;
  def.max_force = 1e5;  // braking never limits here
  const double far = length(arrive_desired_velocity({0, 0}, {200, 0}, def, kDt));
  const double near = length(arrive_desired_velocity({0, 0}, {25, 0}, def, kDt));
  EXPECT_NEAR(far, 100, 1e-9);
  EXPECT_NEAR(near, 100 * std::sqrt(0.5), 1e-9);  // halfway in: constant deceleration's speed
  EXPECT_EQ(arrive_desired_velocity({3, 3}, {3, 3}, def, kDt), (Vec2{0, 0}));
}

// Far from the goal the braking search is skipped; the speed must be the same to the bit as the
// full formula's at every distance, on both sides of where the skip begins.
TEST(ArriveDesiredVelocity, SkippingTheBrakingSearchChangesNoBit) {
  for (double max_speed : {1.0, 2.0, 10.0, 100.0})
    for (double max_force : {0.5, 4.0, 40.0, 400.0}) {
      AgentDef def;
      def.max_speed = max_speed;
      def.max_force = max_force;
      def.slow_radius = 5;
      for (double d = 0.001; d < 2000; d *= 1.01) {
        double want = def.max_speed;
        if (d < def.slow_radius) want *= std::sqrt(d / def.slow_radius);
        want = std::min(want, stopping_speed(d, def.max_force / def.mass, kDt));
        const Vec2 v = arrive_desired_velocity({0, 0}, {d, 0}, def, kDt);
        ASSERT_EQ(v.x, d * (want / d))
            << "max_speed " << max_speed << " max_force " << max_force << " d " << d;
      }
    }
}

TEST(SteerTowards, LimitsForceAndSpeed) {
  AgentDef def;
  def.max_speed = 10;
  def.max_force = 60;  // 1 unit/s per tick at 60 Hz
  def.mass = 2;        // so 0.5 unit/s per tick
  const Vec2 v = steer_towards({0, 0}, {100, 0}, def, kDt);
  EXPECT_NEAR(length(v), 60.0 / 2 * kDt, 1e-12);
  Vec2 fast{9.9, 0};
  for (int i = 0; i < 10; ++i) fast = steer_towards(fast, {100, 0}, def, kDt);
  EXPECT_LE(length(fast), 10 + 1e-12);
}

// One agent in an otherwise empty world, sent to a target: the whole pipeline.
struct Trip {
  const char* name;
  Vec2 start, target;
  AgentDef def;
};

class ArriveInWorld : public ::testing::TestWithParam<Trip> {};

TEST_P(ArriveInWorld, ReachesStopsAndNeverExceedsLimits) {
  const Trip trip = GetParam();
  WorldDef wd;
  wd.width = 2000;
  wd.height = 2000;
  wd.agent_defaults = trip.def;
  World world(wd);
  SpawnAgent s;
  s.position = trip.start;
  ASSERT_TRUE(world.apply(Spawn{0, 0, {s}}).ok());
  world.apply(SetTarget{{true, {}}, trip.target, BehaviourKind::arrive, {}});

  const AgentDef& def = trip.def;
  const double max_dv = def.max_force / def.mass * kDt;
  Vec2 prev_v = world.agents()[0].velocity;
  int arrived_at = -1;
  int reversals = 0;
  double prev_along = 0;
  for (int tick = 0; tick < 60 * 60; ++tick) {
    world.step();
    const Agent& a = world.agents()[0];
    ASSERT_TRUE(std::isfinite(a.position.x) && std::isfinite(a.position.y));
    EXPECT_LE(length(a.velocity), def.max_speed * (1 + 1e-12)) << "tick " << tick;
    EXPECT_LE(length(a.velocity - prev_v), max_dv * (1 + 1e-9)) << "tick " << tick;
    // Oscillation shows as the velocity turning against the target direction and back.
    const double along = dot(a.velocity, trip.target - a.position);
    if (prev_along > 1e-9 && along < -1e-9) ++reversals;
    if (along != 0) prev_along = along;
    prev_v = a.velocity;
    if (a.state == MoveState::arrived && arrived_at < 0) arrived_at = tick;
    if (arrived_at >= 0) {
      // Once arrived it stays: within tolerance and at rest.
      EXPECT_EQ(a.state, MoveState::arrived) << "tick " << tick;
      EXPECT_LE(length(a.position - trip.target), def.arrive_tolerance);
    }
    if (arrived_at >= 0 && tick > arrived_at + 120) break;
  }
  ASSERT_GE(arrived_at, 0) << "never arrived";
  EXPECT_EQ(reversals, 0) << "arrive oscillated";
  EXPECT_EQ(world.agents()[0].velocity, (Vec2{0, 0}));
}

AgentDef make_def(double max_speed, double max_force, double slow_radius, double mass = 1) {
  AgentDef d;
  d.max_speed = max_speed;
  d.max_force = max_force;
  d.slow_radius = slow_radius;
  d.mass = mass;
  return d;
}

INSTANTIATE_TEST_SUITE_P(
    Trips, ArriveInWorld,
    ::testing::Values(
        Trip{"Default", {100, 100}, {600, 100}, make_def(120, 400, 60)},
        Trip{"ShorterThanSlowRadius", {100, 100}, {103, 104}, make_def(120, 400, 60)},
        Trip{"WeakBrakesTinyRadius", {100, 100}, {1500, 1200}, make_def(500, 50, 1)},
        Trip{"StrongBrakes", {100, 100}, {1900, 1900}, make_def(1000, 20000, 0.5)},
        Trip{"NearlyThere", {500, 500}, {500.01, 500}, make_def(120, 400, 60)},
        Trip{"Heavy", {100, 100}, {900, 900}, make_def(120, 400, 60, 5)},
        Trip{"DerivedSlowRadius", {100, 100}, {600, 100}, make_def(120, 400, 0)},
        Trip{"DerivedSlowRadiusSlowAgent", {100, 100}, {130, 140}, make_def(12, 400, 0)},
        Trip{"DerivedSlowRadiusWeakBrakes", {100, 100}, {900, 900}, make_def(120, 40, 0, 2)}),
    [](const ::testing::TestParamInfo<Trip>& info) { return std::string(info.param.name); });

TEST(ArriveDesiredVelocity, TheDefaultSlowRadiusFollowsSpeedAndForce) {
  EXPECT_EQ(AgentDef{}.slow_radius, 0) << "derived unless set";
  EXPECT_DOUBLE_EQ(slow_radius_of(AgentDef{}), 36) << "120² / 400";
  EXPECT_DOUBLE_EQ(slow_radius_of(make_def(12, 400, 0)), 0.36);
  EXPECT_DOUBLE_EQ(slow_radius_of(make_def(120, 400, 0, 2)), 72) << "heavier: brakes slower";
  EXPECT_DOUBLE_EQ(slow_radius_of(make_def(120, 400, 50)), 50) << "a set radius is kept";
  EXPECT_EQ(slow_radius_of(make_def(120, 0, 0)), 0)
      << "no force: no ramp (and no division by zero)";
  // An agent spawned at a tenth of the default speed arrives in about the time its distance takes
  // at that speed. A fixed 60-unit radius would have it crawl the last 60 units for 10 s.
  WorldDef wd;
  World world(wd);
  SpawnAgent s;
  s.position = {100, 100};
  s.target = Vec2{200, 100};
  s.max_speed = 12.0;
  ASSERT_TRUE(world.apply(Spawn{0, 0, {s}}).ok());
  int tick = 0;
  while (world.agents()[0].state != MoveState::arrived && tick < 60 * 60) {
    world.step();
    ++tick;
  }
  EXPECT_LE(tick * kDt, 100.0 / 12 + 0.2) << "arrived after " << tick * kDt << " s";
}

TEST(SeekInWorld, KeepsFullSpeedAndPassesTheTarget) {
  WorldDef wd;
  World world(wd);
  SpawnAgent s;
  s.position = {100, 300};
  ASSERT_TRUE(world.apply(Spawn{0, 0, {s}}).ok());
  world.apply(SetTarget{{false, {1}}, {300, 300}, BehaviourKind::seek, {}});
  double closest = 1e9;
  double furthest_after = 0;
  for (int t = 0; t < 240; ++t) {
    world.step();
    const double d = length(world.agents()[0].position - Vec2{300, 300});
    closest = std::min(closest, d);
    if (closest < 2.5) furthest_after = std::max(furthest_after, d);
  }
  EXPECT_LT(closest, 2.5);  // one tick moves it 2 units at full speed
  EXPECT_GT(furthest_after, 5.0) << "seek overshoots: that is what arrive is for";
  EXPECT_EQ(world.agents()[0].state, MoveState::moving);
}

TEST(SteeringDegenerate, ZeroForceOrSpeedNeverMovesOrNaNs) {
  WorldDef wd;
  wd.agent_defaults.max_force = 0;
  World world(wd);
  SpawnAgent s;
  s.position = {100, 100};
  s.target = Vec2{200, 200};
  ASSERT_TRUE(world.apply(Spawn{0, 0, {s}}).ok());
  SpawnAgent still = s;
  still.position = {300, 300};
  still.target = Vec2{400, 400};
  still.max_speed = 0.0;
  still.max_force = 100.0;
  ASSERT_TRUE(world.apply(Spawn{0, 0, {still}}).ok());
  for (int t = 0; t < 60; ++t) world.step();
  EXPECT_EQ(world.agents()[0].position, (Vec2{100, 100}));
  EXPECT_EQ(world.agents()[1].position, (Vec2{300, 300}));
  for (const Agent& a : world.agents()) EXPECT_EQ(a.state, MoveState::moving);
}

}  // namespace
}  // namespace herd::sim
