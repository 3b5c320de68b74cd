// The collision-free speed model's crowd against Weidmann's fundamental diagram, in herd-bench
// fd's corridor (bench/fd_corridor.hpp): 4 m wide, filled at densities from 0.5 to 5 per m², the
// classic density and mean speed measured in a 4 x 4 m area as PedPy measures them.
#include <gtest/gtest.h>

#include <cmath>

#include "fd_corridor.hpp"

namespace herd::bench::fd {
namespace {

// Within 0.15 m/s of Weidmann's speed at the density measured, at every density from 0.5 to 5
// per m², and a root mean square error below JuPedSim's collision-free speed model's on the same
// corridor (0.14 m/s from a random start, 0.24 from a lattice, analysed by PedPy).
TEST(FundamentalDiagram, CfsmFollowsWeidmannFromHalfToFivePerSquareMetre) {
  double squares = 0;
  int n = 0;
  for (double rho = 0.5; rho <= 5.0 + 1e-9; rho += 0.5) {
    const Point p = run(rho, sim::AvoidanceMode::cfsm, "cfsm");
    const double error = p.speed - weidmann(p.density);
    EXPECT_NEAR(p.density, rho, 0.35 * rho) << "the area holds the crowd it was filled with";
    EXPECT_LE(std::abs(error), 0.15)
        << "at " << p.density << " per m²: " << p.speed << " m/s, Weidmann " << weidmann(p.density);
    squares += error * error;
    ++n;
  }
  EXPECT_LT(std::sqrt(squares / n), 0.14);
}

// The anti-gravity modes keep their speed in a crowd: at 4 per m² cardioid walks more than
// three times Weidmann's speed, which is why the pedestrian scenarios use cfsm.
TEST(FundamentalDiagram, CardioidDoesNotSlowWithDensity) {
  const Point p = run(4.0, sim::AvoidanceMode::cardioid, "cardioid");
  EXPECT_GT(p.speed, 3 * weidmann(p.density));
}

}  // namespace
}  // namespace herd::bench::fd
