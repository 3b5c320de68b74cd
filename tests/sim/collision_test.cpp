// Collisions as in "Accidents Do Happen": detection, collision point, elastic response.
#include "collision.hpp"

#include <gtest/gtest.h>

namespace herd::sim {
namespace {

TEST(Collision, TouchingIncludesExactContactOnSquaredDistances) {
  EXPECT_TRUE(circles_touch({0, 0}, 5, {10, 0}, 5));
  EXPECT_FALSE(circles_touch({0, 0}, 5, {10.001, 0}, 5));
  EXPECT_TRUE(circles_touch({0, 0}, 5, {0, 0}, 5));
}

TEST(Collision, PointSplitsTheCentresInTheRatioOfTheRadii) {
  const Vec2 p = collision_point({0, 0}, 10, {15, 0}, 5);
  EXPECT_NEAR(p.x, 10, 1e-12);  // on the bigger one's rim
  EXPECT_EQ(collision_point({1, 1}, 0, {3, 1}, 0), (Vec2{2, 1}));
}

TEST(Collision, EqualMassesHeadOnSwapVelocities) {
  const Vec2 v1{10, 0}, v2{-4, 0};
  const Vec2 d1 = elastic_velocity_change({0, 0}, v1, 1, {2, 0}, v2, 1);
  const Vec2 d2 = elastic_velocity_change({2, 0}, v2, 1, {0, 0}, v1, 1);
  EXPECT_NEAR((v1 + d1).x, -4, 1e-12);
  EXPECT_NEAR((v2 + d2).x, 10, 1e-12);
}

TEST(Collision, MomentumAndEnergyAreConservedForAnyMasses) {
  const Vec2 p1{0, 0}, p2{3, 4};
  const Vec2 v1{7, 9}, v2{-2, -5};
  const double m1 = 2.5, m2 = 0.7;
  const Vec2 n1 = v1 + elastic_velocity_change(p1, v1, m1, p2, v2, m2);
  const Vec2 n2 = v2 + elastic_velocity_change(p2, v2, m2, p1, v1, m1);
  const Vec2 before = v1 * m1 + v2 * m2, after = n1 * m1 + n2 * m2;
  EXPECT_NEAR(before.x, after.x, 1e-9);
  EXPECT_NEAR(before.y, after.y, 1e-9);
  EXPECT_NEAR(m1 * length_squared(v1) + m2 * length_squared(v2),
              m1 * length_squared(n1) + m2 * length_squared(n2), 1e-9);
}

TEST(Collision, SeparatingOrCoincidentBodiesGetNoResponse) {
  EXPECT_EQ(elastic_velocity_change({0, 0}, {-1, 0}, 1, {2, 0}, {1, 0}, 1), (Vec2{0, 0}));
  EXPECT_EQ(elastic_velocity_change({0, 0}, {5, 0}, 1, {0, 0}, {-5, 0}, 1), (Vec2{0, 0}));
}

TEST(Collision, StaticBounceReflectsOnlyTheApproachingComponent) {
  const Vec2 dv = bounce_off_static({-10, 0}, {5, 3}, {0, 0});
  EXPECT_NEAR(dv.x, -10, 1e-12);
  EXPECT_NEAR(dv.y, 0, 1e-12);
  EXPECT_EQ(bounce_off_static({-10, 0}, {-5, 3}, {0, 0}), (Vec2{0, 0}));
  EXPECT_EQ(bounce_off_static({0, 0}, {-5, 3}, {0, 0}), (Vec2{0, 0}));
}

}  // namespace
}  // namespace herd::sim
