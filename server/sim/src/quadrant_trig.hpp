// herd::sim quadrant trigonometry — the angle and the rotation avoidance needs per neighbour, in
// plain arithmetic.
//
// The side fix needs, per neighbour in front, the angle between the path and the push (an
// atan2) and a rotation by a turn computed from it (a sine and a cosine). Both arguments lie in
// one quadrant, so these need no range reduction: a few multiplications, divisions and selects,
// inlined, with no branch on the data. That lets the batch form of avoidance (avoidance.hpp) run
// its per-neighbour loop in vector registers, and, being only + - * / and sqrt in a fixed order
// (the sim is compiled with -ffp-contract=off), they give the same bits on every machine, in
// scalar code and in vector lanes alike. They agree with std::atan2, std::sin and std::cos to a
// few ulps (tests/sim/quadrant_trig_test.cpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <numbers>

namespace herd::sim::qt {

// std::max and std::min by value: the same results, but a compiler turns these into vector
// blends, while the standard ones return references it will not select between in a vector loop.
inline double max_of(double a, double b) { return a < b ? b : a; }
inline double min_of(double a, double b) { return b < a ? b : a; }

// atan2(y, x) for x >= 0 and y >= 0, in [0, pi/2]; (0, 0) gives 0.
inline double atan2_first_quadrant(double y, double x) {
  constexpr double kPi2 = std::numbers::pi / 2, kPi4 = std::numbers::pi / 4;
  constexpr double kTanPi8 = 0.414213562373095048802;
  // atan of the smaller over the larger, in [0, 1], reduced to |z| <= tan(pi/8) by
  // atan t = pi/4 + atan((t-1)/(t+1)).
  // Arithmetic stays out of the selects (a compiler will not turn a select whose arm might raise
  // a floating-point exception into a vector blend), so some values are computed and not used.
  // One division: lo/hi, or (lo-hi)/(lo+hi) = (t-1)/(t+1) when t = lo/hi > tan(pi/8), that is
  // when lo > tan(pi/8) hi (which the exact product decides as well as the rounded quotient would).
  const double hi = max_of(x, y), lo = min_of(x, y);
  const bool reduce = lo > kTanPi8 * hi;
  const double z = (reduce ? lo - hi : lo) / (reduce ? lo + hi : (hi > 0 ? hi : 1.0));
  // Hart & Cheney, "Computer Approximations" (1968), index 5077: x P(x^2)/Q(x^2) on
  // |x| <= tan(pi/8), 19.56 significant digits.
  constexpr double p4 = 0.161536412982230228262e2, p3 = 0.26842548195503973794141e3,
                   p2 = 0.11530293515404850115428136e4, p1 = 0.178040631643319697105464587e4,
                   p0 = 0.89678597403663861959987488e3;
  constexpr double q4 = 0.5895697050844462222791e2, q3 = 0.536265374031215315104235e3,
                   q2 = 0.16667838148816337184521798e4, q1 = 0.207933497444540981287275926e4,
                   q0 = 0.89678597403663861962481162e3;
  const double zz = z * z;
  const double p = (((p4 * zz + p3) * zz + p2) * zz + p1) * zz + p0;
  const double q = ((((zz + q4) * zz + q3) * zz + q2) * zz + q1) * zz + q0;
  const double a = (reduce ? kPi4 : 0.0) + z * p / q;
  const double complement = kPi2 - a;
  return y > x ? complement : a;
}

struct SinCos {
  double sin, cos;
};

namespace detail {

// (-1)^k / (2k + first)!, k = 0..n-1: the Taylor coefficients of sin (first = 1) and cos (0).
template <int n, int first>
constexpr std::array<double, n> taylor() {
  std::array<double, n> c{};
  double factorial = 1;
  for (int i = 1; i <= first; ++i) factorial *= i;
  for (int k = 0; k < n; ++k) {
    c[static_cast<std::size_t>(k)] = (k % 2 ? -1.0 : 1.0) / factorial;
    factorial *= (2 * k + first + 1) * (2 * k + first + 2);
  }
  return c;
}
inline constexpr auto kSin = taylor<8, 1>();  // to x^15
inline constexpr auto kCos = taylor<9, 0>();  // to x^16

// c[0] + z (c[1] + z (c[2] + ...)), written out at compile time: no loop inside the callers' loops.
template <std::size_t k = 0, std::size_t n>
inline double horner(const std::array<double, n>& c, double z) {
  if constexpr (k + 1 == n)
    return c[k];
  else
    return horner<k + 1>(c, z) * z + c[k];
}

}  // namespace detail

// sin and cos of a for |a| <= pi/2, from those of x = a/2 (|x| <= pi/4, where Taylor series to
// the 15th and 16th power leave remainders below 5e-17) by the double-angle formulas: eight and
// nine terms instead of the twelve and thirteen a itself would need.
inline SinCos sin_cos_half_turn(double a) {
  const double x = a * 0.5;  // exact
  const double z = x * x;
  const double s = x * detail::horner(detail::kSin, z), c = detail::horner(detail::kCos, z);
  return {2 * s * c, (c - s) * (c + s)};
}

}  // namespace herd::sim::qt
