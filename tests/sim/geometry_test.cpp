// The avoidance fixes' geometry helpers: each formula alone, degenerate input included.
#include "geometry.hpp"

#include <gtest/gtest.h>

namespace herd::sim {
namespace {

TEST(WrapAngle, KeepsAnglesWithinHalfATurn) {
  EXPECT_NEAR(wrap_angle(3 * kPi / 2), -kPi / 2, 1e-12);
  EXPECT_NEAR(wrap_angle(-3 * kPi / 2), kPi / 2, 1e-12);
  EXPECT_EQ(wrap_angle(0.5), 0.5);
}

TEST(SegmentIntersection, FindsCrossingsAndRejectsMisses) {
  const auto p = segment_intersection({0, 0}, {10, 0}, {5, -5}, {5, 5});
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->x, 5, 1e-12);
  EXPECT_NEAR(p->y, 0, 1e-12);
  EXPECT_FALSE(segment_intersection({0, 0}, {10, 0}, {5, 1}, {5, 5}));  // stops short
  // Parallel: the original code divided by 0.
  EXPECT_FALSE(segment_intersection({0, 0}, {10, 0}, {0, 1}, {10, 1}));
  EXPECT_FALSE(segment_intersection({0, 0}, {0, 0}, {0, 0}, {0, 0}));  // degenerate
}

TEST(MirrorAbout, ReflectsAboutTheAxisEvenWhenItIsHorizontal) {
  // The published mirrorVector divided by axis.vy: a horizontal path gave infinities.
  const Vec2 m = mirror_about({1, 0}, {-2, 3});
  EXPECT_NEAR(m.x, -2, 1e-12);
  EXPECT_NEAR(m.y, -3, 1e-12);
  const Vec2 d = mirror_about({1, 1}, {1, 0});
  EXPECT_NEAR(d.x, 0, 1e-12);
  EXPECT_NEAR(d.y, 1, 1e-12);
  EXPECT_EQ(mirror_about({0, 0}, {4, 5}), (Vec2{4, 5}));
  // Mirroring keeps length.
  EXPECT_NEAR(length(mirror_about({3, -7}, {2, 9})), length(Vec2{2, 9}), 1e-12);
}

TEST(QuarterEllipse, ZeroAtTheEndsOneInTheMiddleClampedOutside) {
  EXPECT_NEAR(quarter_ellipse(0), 0, 1e-12);
  EXPECT_NEAR(quarter_ellipse(kPi), 0, 1e-12);
  EXPECT_NEAR(quarter_ellipse(kPi / 2), 1, 1e-12);
  EXPECT_EQ(quarter_ellipse(-1), 0);  // the published code's sqrt of a negative number
  EXPECT_EQ(quarter_ellipse(7), 0);
}

TEST(Rotate, QuarterTurnIsTheRightHandSideOnAYDownScreen) {
  const Vec2 r = rotate({1, 0}, kPi / 2);
  EXPECT_NEAR(r.x, 0, 1e-12);
  EXPECT_NEAR(r.y, 1, 1e-12);  // heading east, +y (down the screen) is the right hand
}

}  // namespace
}  // namespace herd::sim
