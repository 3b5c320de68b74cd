// Reciprocal velocity obstacles (reciprocal.hpp): each agent alone, then pairs and crowds stepped
// with the chosen velocities, as the world steps its members.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reciprocal.hpp"

namespace herd::sim {
namespace {

constexpr double kDt = 1.0 / 60;
constexpr double kHorizon = 0.45;

struct Body {
  Vec2 position, velocity, goal;
  double radius = 8;
  double max_speed = 120;
};

// Steps every body by its reciprocal velocity (each the others' share 0.5, or `share` for the
// static ones) for `ticks`; returns the smallest gap between any two at any tick.
double run(std::vector<Body>& bodies, int ticks, const std::vector<bool>& still = {}) {
  std::vector<VelocityLine> lines;
  double closest = HUGE_VAL;
  for (int t = 0; t < ticks; ++t) {
    std::vector<Vec2> next(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const Body& b = bodies[i];
      if (!still.empty() && still[i]) continue;
      std::vector<ReciprocalNeighbour> near;
      for (std::size_t j = 0; j < bodies.size(); ++j)
        if (j != i)
          near.push_back({bodies[j].position, bodies[j].velocity, bodies[j].radius,
                          !still.empty() && still[j] ? 1.0 : 0.5});
      const Vec2 to_goal = b.goal - b.position;
      const Vec2 preferred = clamp_length(to_goal * (1 / kDt), b.max_speed);
      next[i] = reciprocal_velocity(b.position, b.velocity, b.radius, preferred, b.max_speed, near,
                                    kHorizon, kDt, lines);
    }
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      bodies[i].velocity = next[i];
      bodies[i].position += next[i] * kDt;
    }
    for (std::size_t i = 0; i < bodies.size(); ++i)
      for (std::size_t j = i + 1; j < bodies.size(); ++j)
        closest = std::min(closest, length(bodies[i].position - bodies[j].position) -
                                        bodies[i].radius - bodies[j].radius);
  }
  return closest;
}

TEST(Reciprocal, NobodyOnACollisionCourseLeavesThePreferredVelocity) {
  std::vector<VelocityLine> lines;
  const Vec2 preferred{120, 0};
  // Alone; beside it going the same way; behind it going away; ahead but off its line.
  EXPECT_EQ(reciprocal_velocity({0, 0}, preferred, 8, preferred, 120, {}, kHorizon, kDt, lines),
            preferred);
  const std::vector<ReciprocalNeighbour> near = {
      {{0, 30}, {120, 0}, 8, 0.5}, {{-40, 0}, {-120, 0}, 8, 0.5}, {{60, 40}, {}, 8, 0.5}};
  EXPECT_EQ(reciprocal_velocity({0, 0}, preferred, 8, preferred, 120, near, kHorizon, kDt, lines),
            preferred);
  // Too fast a wish is held to max speed.
  EXPECT_NEAR(length(reciprocal_velocity({0, 0}, {}, 8, {300, 400}, 120, {}, kHorizon, kDt, lines)),
              120, 1e-9);
}

TEST(Reciprocal, TwoHeadOnPassEachOtherWithoutTouching) {
  // Slightly off the same line (exactly on it the two have no side to choose: see the world's
  // tangent rule), at full speed towards each other.
  std::vector<Body> bodies = {{{0, 0}, {120, 0}, {400, 0}}, {{400, 1}, {-120, 0}, {0, 1}}};
  const double closest = run(bodies, 360);
  EXPECT_GE(closest, -1e-6) << "never overlapping";
  EXPECT_LT(length(bodies[0].position - bodies[0].goal), 1.0);
  EXPECT_LT(length(bodies[1].position - bodies[1].goal), 1.0);
}

TEST(Reciprocal, AStandingNeighbourTakesItsShareAndLetsAMoverBy) {
  // A member standing on the way (share 0.5 each): it steps aside as much as the mover does.
  std::vector<Body> bodies = {{{0, 0}, {120, 0}, {300, 0}}, {{150, 3}, {}, {150, 3}}};
  const double closest = run(bodies, 240);
  EXPECT_GE(closest, -1e-6);
  EXPECT_LT(length(bodies[0].position - bodies[0].goal), 1.0) << "the mover arrives";
  EXPECT_LT(length(bodies[1].position - bodies[1].goal), 1.0)
      << "and the other is back in its place";
}

TEST(Reciprocal, AnObstacleThatDoesNotMoveIsAvoidedAlone) {
  // share 1: the whole avoidance is the mover's; the obstacle never moves.
  std::vector<Body> bodies = {{{0, 0}, {120, 0}, {300, 0}}, {{150, 4}, {}, {150, 4}, 20}};
  const double closest = run(bodies, 300, {false, true});
  EXPECT_GE(closest, -1e-6);
  EXPECT_EQ(bodies[1].position, (Vec2{150, 4}));
  EXPECT_LT(length(bodies[0].position - bodies[0].goal), 1.0);
}

TEST(Reciprocal, ACrowdSwappingSidesNeverOverlaps) {
  // Two rows of eight, 24 apart, trading places through each other.
  std::vector<Body> bodies;
  for (int k = 0; k < 8; ++k) {
    bodies.push_back({{0, 24.0 * k}, {}, {300, 24.0 * k + 0.5}});
    bodies.push_back({{300, 24.0 * k + 0.5}, {}, {0, 24.0 * k}});
  }
  const double closest = run(bodies, 900);
  EXPECT_GE(closest, -0.5) << "within rounding of touching at worst";
  for (const Body& b : bodies) EXPECT_LT(length(b.position - b.goal), 1.0);
}

TEST(Reciprocal, HemmedInOnEverySideItStillAnswersWithinMaxSpeed) {
  // Eight neighbours closing in at once: no velocity avoids them all; the one that least breaks
  // the worst constraint, finite and no faster than max speed.
  std::vector<ReciprocalNeighbour> near;
  for (int k = 0; k < 8; ++k) {
    const double a = k * 3.14159265358979 / 4;
    const Vec2 at{20 * std::cos(a), 20 * std::sin(a)};
    near.push_back({at, at * -6.0, 8, 0.5});
  }
  std::vector<VelocityLine> lines;
  const Vec2 v = reciprocal_velocity({0, 0}, {}, 8, {120, 0}, 120, near, kHorizon, kDt, lines);
  EXPECT_TRUE(std::isfinite(v.x) && std::isfinite(v.y));
  EXPECT_LE(length(v), 120 + 1e-9);
  // Touching already: the answer moves it apart from the one it touches.
  const std::vector<ReciprocalNeighbour> touching = {{{15, 0}, {}, 8, 0.5}};
  const Vec2 apart =
      reciprocal_velocity({0, 0}, {}, 8, {120, 0}, 120, touching, kHorizon, kDt, lines);
  EXPECT_LT(apart.x, 0) << "backs away";
}

}  // namespace
}  // namespace herd::sim
