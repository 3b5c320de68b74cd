// The anti-gravity avoidance pipeline, stage by stage and whole.
#include "avoidance.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "geometry.hpp"

namespace herd::sim {
namespace {

Neighbour standing(std::uint32_t id, Vec2 p, double r = 8) { return {id, false, p, {}, r}; }
Mover heading_east(Vec2 p = {0, 0}, double speed = 100) { return {p, {speed, 0}, 8, {speed, 0}}; }

TEST(Antigravity, SeedFormulaAndNoInfinityAtZeroDistance) {
  // The anti-gravity push: mass = (r1 + r2)^2 * k, magnitude = mass / d^2: 1 * k at d = r1 + r2.
  EXPECT_NEAR(antigravity_magnitude(3, 16, 16), 3, 1e-12);
  EXPECT_NEAR(antigravity_magnitude(2, 16, 32), 0.5, 1e-12);
  EXPECT_TRUE(std::isfinite(antigravity_magnitude(3, 16, 0)));
  EXPECT_EQ(antigravity_magnitude(3, 0, 0), 0);
}

TEST(Cardioid, FullAheadNothingBehindAnEighthAbeam) {
  EXPECT_NEAR(cardioid_weight(0, 3), 1, 1e-12);
  EXPECT_NEAR(cardioid_weight(kPi, 3), 0, 1e-12);
  EXPECT_NEAR(cardioid_weight(kPi / 2, 3), 0.125, 1e-12);  // ((1 + 0)/2)^3
  EXPECT_NEAR(cardioid_weight(kPi / 2, 1), 0.5, 1e-12);
}

TEST(PushCutoff, IsWhereTheMagnitudeFallsToEpsilon) {
  AvoidanceDef def;
  const double d = push_cutoff(def, 16);
  EXPECT_NEAR(antigravity_magnitude(def.personal_space, 16, d), def.push_epsilon, 1e-12);
}

TEST(AdjustedPush, NoTurnAbeamQuarterTurnDeadAheadTowardsTheSide) {
  // Push at 90 degrees to the path or less: not rotated (the inverted quarter ellipse is 0).
  EXPECT_NEAR(adjusted_push_angle(kPi / 2, kPi / 2, 1, Side::right), kPi / 2, 1e-12);
  // Dead ahead (push straight against the path, delta2 = pi): rotated a full quarter turn.
  // Heading east (theta 0), the raw push points west (pi); right is +pi/2 (south on screen).
  const double right = adjusted_push_angle(kPi, kPi, 1, Side::right);
  EXPECT_NEAR(wrap_angle(right), kPi / 2, 1e-12);
  const double left = adjusted_push_angle(kPi, kPi, 1, Side::left);
  EXPECT_NEAR(wrap_angle(left), -kPi / 2, 1e-12);
  // The turn scales with the cardioid weight: half weight, half the turn.
  EXPECT_NEAR(wrap_angle(adjusted_push_angle(kPi, kPi, 0.5, Side::right)), 3 * kPi / 4, 1e-12);
  // Off dead ahead the obstacle's own side decides, not the preference: an obstacle slightly
  // left (push slightly right of backwards, delta2 < pi) turns the push to the right.
  const double off = adjusted_push_angle(kPi - 0.1, kPi - 0.1, 1, Side::left);
  EXPECT_GT(std::sin(off), 0);  // pointing to +y: right
}

// The published angle form of steps 2-3 (atan2 of the push, the cardioid of the angle to the
// obstacle, the turned push rebuilt from its angle), as the pipeline computed it before the
// vector form: the reference cardioid_push must match.
CardioidPush seed_angle_form(Vec2 u, Vec2 raw, double exponent, Side preferred) {
  const double theta = angle_of(u);
  const double raw_angle = angle_of(raw);
  const double to_obstacle = raw_angle >= 0 ? raw_angle - kPi : raw_angle + kPi;
  const double weight = cardioid_weight(wrap_angle(to_obstacle - theta), exponent);
  const double delta2 = wrap_angle(raw_angle - theta);
  const Vec2 adjusted =
      delta2 != 0
          ? from_angle(adjusted_push_angle(raw_angle, delta2, weight, preferred), length(raw))
          : raw;
  return {adjusted, weight};
}

TEST(CardioidPush, VectorFormMatchesTheSeedsAngleForm) {
  // Directions all round (including exactly ahead, abeam and dead ahead), several magnitudes and
  // exponents, both preferred sides.
  int checked = 0;
  for (int i = 0; i < 36; ++i) {
    const Vec2 u = from_angle(i * kPi / 18 + 0.013 * i);
    for (int j = 0; j <= 72; ++j) {
      const Vec2 away = j == 72 ? u * -1.0 : from_angle(angle_of(u) + j * kPi / 36);
      for (double mag : {0.05, 1.0, 300.0}) {
        for (double exponent : {0.0, 1.0, 3.0, 7.5}) {
          for (Side side : {Side::left, Side::right}) {
            const Vec2 raw = away * mag;
            const CardioidPush fast = cardioid_push(u, away, raw, exponent, side);
            const CardioidPush ref = seed_angle_form(u, raw, exponent, side);
            ASSERT_NEAR(fast.weight, ref.weight, 1e-12) << i << ' ' << j;
            // 1e-7: the quarter ellipse has an infinite slope dead ahead, where both forms'
            // last-bit differences in the angle grow to about its square root.
            ASSERT_NEAR(fast.adjusted.x, ref.adjusted.x, 1e-7 * mag) << i << ' ' << j << ' ' << mag;
            ASSERT_NEAR(fast.adjusted.y, ref.adjusted.y, 1e-7 * mag) << i << ' ' << j << ' ' << mag;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 36 * 73 * 3 * 4 * 2);
}

// The split fix in the published angles (the stated idea: the yellow sum adjusted as one obstacle),
// what split_fix computed before its vector form.
SplitFix split_fix_angle_form(Vec2 sum_raw, Vec2 sum_adjusted, Vec2 u, Side preferred) {
  SplitFix out;
  const double theta = angle_of(u), mag_old = length(sum_raw), mag_new = length(sum_adjusted);
  if (mag_old >= mag_new && mag_old > 0) {
    const double raw_angle = angle_of(sum_raw);
    const double weight = cardioid_weight(wrap_angle(raw_angle - kPi - theta), 3.0);
    const double delta2 = wrap_angle(raw_angle - theta);
    const double angle =
        delta2 != 0 ? adjusted_push_angle(raw_angle, delta2, weight, preferred) : raw_angle;
    out.green = from_angle(angle, mag_old * (1 - mag_new / mag_old));
  }
  const Vec2 combined = out.green + sum_adjusted;
  if (length_squared(combined) > 0) {
    const double delta = std::abs(wrap_angle(angle_of(combined) - theta));
    out.ig_factor = delta != 0 ? quarter_ellipse(delta) : 0.0;
  }
  return out;
}

TEST(SplitFix, VectorFormMatchesTheSeedsAngleForm) {
  int checked = 0;
  for (int i = 0; i < 24; ++i) {
    const Vec2 u = from_angle(i * kPi / 12 + 0.017 * i);
    for (int j = 0; j <= 48; ++j) {
      // Yellow all round (and exactly against the path), blue of several lengths and directions.
      const Vec2 yellow = j == 48 ? u * -2.0 : from_angle(angle_of(u) + j * kPi / 24, 2.0);
      for (double blue_len : {0.0, 0.5, 1.9, 3.0}) {
        for (int k = 0; k < 4; ++k) {
          const Vec2 blue = from_angle(angle_of(u) + k * kPi / 2 + 0.3, blue_len);
          for (Side side : {Side::left, Side::right}) {
            const SplitFix fast = split_fix(yellow, blue, u, side);
            const SplitFix ref = split_fix_angle_form(yellow, blue, u, side);
            // As for cardioid_push: the quarter ellipse's infinite slope dead ahead.
            ASSERT_NEAR(fast.green.x, ref.green.x, 1e-7)
                << i << ' ' << j << ' ' << blue_len << ' ' << k;
            ASSERT_NEAR(fast.green.y, ref.green.y, 1e-7)
                << i << ' ' << j << ' ' << blue_len << ' ' << k;
            ASSERT_NEAR(fast.ig_factor, ref.ig_factor, 1e-7)
                << i << ' ' << j << ' ' << blue_len << ' ' << k;
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 24 * 49 * 4 * 4 * 2);
}

TEST(CardioidPush, DeadAheadTurnsAQuarterToThePreferredSide) {
  const Vec2 u{1, 0};
  const CardioidPush right = cardioid_push(u, {-1, 0}, {-2, 0}, 3, Side::right);
  const CardioidPush left = cardioid_push(u, {-1, 0}, {-2, 0}, 3, Side::left);
  EXPECT_DOUBLE_EQ(right.weight, 1);
  // Right on screen (y down) is +y when facing +x: the push rotated by -90 degrees maths-wise
  // from (-2, 0) is (0, 2); the published sign convention decides, and the two sides are mirrors.
  EXPECT_NEAR(right.adjusted.x, 0, 1e-12);
  EXPECT_NEAR(left.adjusted.x, 0, 1e-12);
  EXPECT_NEAR(std::abs(right.adjusted.y), 2, 1e-12);
  EXPECT_NEAR(right.adjusted.y, -left.adjusted.y, 1e-12);
}

TEST(Avoidance, DeadAheadObstacleTurnsToThePreferredSide) {
  AvoidanceDef def;
  const Neighbour o = standing(2, {30, 0});
  const Vec2 right = avoidance_direction(def, heading_east(), {&o, 1});
  EXPECT_GT(right.y, 0.1);  // +y: right of an east-facing agent on a y-down screen
  def.preferred_side = Side::left;
  const Vec2 left = avoidance_direction(def, heading_east(), {&o, 1});
  EXPECT_LT(left.y, -0.1);
  EXPECT_NEAR(length(right), 1, 1e-12);
}

TEST(Avoidance, CircleModeDeadAheadHasNoWayAround) {
  // The problem the side fix solves: plain anti-gravity straight against the path only slows or
  // reverses.
  AvoidanceDef def;
  def.mode = AvoidanceMode::circle;
  const Neighbour o = standing(2, {20, 0});
  const Vec2 dir = avoidance_direction(def, heading_east(), {&o, 1});
  EXPECT_NEAR(dir.y, 0, 1e-12);
}

TEST(Avoidance, CardioidIgnoresWhatIsBehindCircleDoesNot) {
  AvoidanceDef def;
  const Neighbour behind = standing(2, {-20, 5});
  const Vec2 cardioid = avoidance_direction(def, heading_east(), {&behind, 1});
  def.mode = AvoidanceMode::circle;
  const Vec2 circle = avoidance_direction(def, heading_east(), {&behind, 1});
  EXPECT_LT(std::abs(cardioid.y), 0.01);
  EXPECT_LT(cardioid.y, std::abs(circle.y) / 10);
  EXPECT_LT(circle.y, -0.05);  // pushed away from the obstacle (which is at +y)
}

TEST(Avoidance, SymmetricPairSplitsToTheRight) {
  AvoidanceDef def;
  const Neighbour pair[] = {standing(2, {30, -10}), standing(3, {30, 10})};
  AvoidanceTrace trace;
  const Vec2 dir = avoidance_direction(def, heading_east(), pair, &trace);
  EXPECT_NEAR(trace.sum_raw.y, 0, 1e-9);  // yellow: the sideways pushes cancel
  EXPECT_GT(trace.split_fix.y, 0.05);     // green: the split fix picks the right
  EXPECT_GT(dir.y, 0.05);
  ASSERT_EQ(trace.pushes.size(), 2u);
  EXPECT_NEAR(trace.pushes[0].adjusted.y, -trace.pushes[1].adjusted.y,
              1e-9);  // blue: mirror images
}

TEST(Avoidance, SeedSplitFixIsWeakerThanTheSumAsObstacle) {
  AvoidanceDef def;
  const Neighbour pair[] = {standing(2, {20, -9}), standing(3, {20, 9})};
  AvoidanceTrace idea, seed;
  avoidance_direction(def, heading_east(), pair, &idea);
  def.split_fix = SplitFixMode::seed;
  avoidance_direction(def, heading_east(), pair, &seed);
  EXPECT_GT(idea.split_fix.y, 3 * std::abs(seed.split_fix.y));
}

TEST(Avoidance, CrossingPathsTheLaterOneYieldsByMirroring) {
  AvoidanceDef def;
  // Me: at the origin heading east at 100. Other: ahead to the right, heading north (-y), and
  // nearer the crossing point (40, 0) than I am: it goes first.
  const Mover me = heading_east();
  const Neighbour other{2, false, {40, 20}, {0, -100}, 8};
  AvoidanceTrace trace;
  avoidance_direction(def, me, {&other, 1}, &trace);
  ASSERT_EQ(trace.pushes.size(), 1u);
  const PushTrace& p = trace.pushes[0];
  EXPECT_TRUE(p.crossing);
  ASSERT_TRUE(p.crossing_point);
  EXPECT_NEAR(p.crossing_point->x, 40, 1e-9);
  EXPECT_LT(p.t_other, p.t_self);
  EXPECT_TRUE(p.yielded);
  // And from the other side: it reaches the crossing first, so it keeps its push.
  const Mover it{{40, 20}, {0, -100}, 8, {0, -100}};
  const Neighbour me_as_other{1, false, {0, 0}, {100, 0}, 8};
  AvoidanceTrace theirs;
  avoidance_direction(def, it, {&me_as_other, 1}, &theirs);
  ASSERT_EQ(theirs.pushes.size(), 1u);
  EXPECT_FALSE(theirs.pushes[0].yielded);
}

TEST(Avoidance, AnObstacleThatCannotBeCaughtIsIgnored) {
  AvoidanceDef def;
  const Neighbour faster{2, false, {25, 0}, {150, 0}, 8};
  AvoidanceTrace trace;
  const Vec2 dir = avoidance_direction(def, heading_east(), {&faster, 1}, &trace);
  ASSERT_EQ(trace.pushes.size(), 1u);
  EXPECT_TRUE(trace.pushes[0].ignored);
  EXPECT_EQ(dir, (Vec2{1, 0}));
}

TEST(Avoidance, DegenerateInputsNeverGiveNaN) {
  AvoidanceDef def;
  const Neighbour coincident[] = {
      standing(2, {0, 0}), standing(3, {0, 0}, 0.1), {4, true, {0, 0}, {}, 50}};
  for (AvoidanceMode mode : {AvoidanceMode::none, AvoidanceMode::circle, AvoidanceMode::cardioid}) {
    def.mode = mode;
    for (const Mover& m : {heading_east(), Mover{{0, 0}, {0, 0}, 8, {0, 0}},
                           Mover{{0, 0}, {0, 0}, 8, {1e-300, 0}}}) {
      const Vec2 dir = avoidance_direction(def, m, coincident);
      EXPECT_TRUE(std::isfinite(dir.x) && std::isfinite(dir.y));
      EXPECT_LE(length(dir), 1 + 1e-12);
    }
  }
  EXPECT_EQ(avoidance_direction(def, {{0, 0}, {}, 8, {}}, coincident),
            (Vec2{0, 0}));  // no desire, no motion
}

TEST(Avoidance, NoneModeLeavesTheDesireAlone) {
  AvoidanceDef def;
  def.mode = AvoidanceMode::none;
  const Neighbour o = standing(2, {20, 0});
  EXPECT_EQ(avoidance_direction(def, heading_east(), {&o, 1}), (Vec2{1, 0}));
}

}  // namespace
}  // namespace herd::sim
