// The quadrant trigonometry avoidance uses per neighbour agrees with the standard library.
#include "quadrant_trig.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "rng.hpp"

namespace herd::sim {
namespace {

constexpr double kPi = std::numbers::pi;

// |got - expected| in units of 2^-52 (ulps of numbers near 1).
double ulps(double got, double expected) { return std::abs(got - expected) / 0x1p-52; }

TEST(QuadrantTrig, Atan2MatchesTheStandardLibraryOverTheQuadrant) {
  Rng rng(3);
  double worst = 0;
  for (int n = 0; n < 300000; ++n) {
    // Unit vectors (what avoidance passes) and arbitrary magnitudes.
    const double angle = rng.uniform(0, kPi / 2);
    double y = std::sin(angle), x = std::cos(angle);
    if (n % 2) {
      y = std::ldexp(rng.uniform(0, 1), static_cast<int>(rng.uniform(-20, 20)));
      x = std::ldexp(rng.uniform(0, 1), static_cast<int>(rng.uniform(-20, 20)));
    }
    worst = std::max(worst, ulps(qt::atan2_first_quadrant(y, x), std::atan2(y, x)));
  }
  EXPECT_LT(worst, 3.0);
  EXPECT_EQ(qt::atan2_first_quadrant(0, 0), 0.0);
  EXPECT_EQ(qt::atan2_first_quadrant(0, 1), 0.0);
  EXPECT_EQ(qt::atan2_first_quadrant(1, 0), kPi / 2);
  EXPECT_NEAR(qt::atan2_first_quadrant(1, 1), kPi / 4, 2e-16);
}

TEST(QuadrantTrig, SinCosMatchTheStandardLibraryWithinAQuarterTurn) {
  Rng rng(4);
  double worst = 0;
  for (int n = 0; n < 300000; ++n) {
    const double a = rng.uniform(-kPi / 2, kPi / 2);
    const qt::SinCos sc = qt::sin_cos_half_turn(a);
    worst = std::max({worst, ulps(sc.sin, std::sin(a)), ulps(sc.cos, std::cos(a))});
  }
  EXPECT_LT(worst, 3.0);
  EXPECT_EQ(qt::sin_cos_half_turn(0).sin, 0.0);
  EXPECT_EQ(qt::sin_cos_half_turn(0).cos, 1.0);
  EXPECT_NEAR(qt::sin_cos_half_turn(kPi / 2).sin, 1.0, 2e-16);
  EXPECT_NEAR(qt::sin_cos_half_turn(-kPi / 2).cos, 0.0, 2e-16);
}

}  // namespace
}  // namespace herd::sim
