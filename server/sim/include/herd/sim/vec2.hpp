// herd::sim::Vec2 — the 2D vector every stage of the world step uses.
// Units are whatever the caller's are (world units, units/s, units/s²).
#pragma once

#include <cmath>

namespace herd::sim {

struct Vec2 {
  double x = 0.0;
  double y = 0.0;

  constexpr Vec2& operator+=(Vec2 o) {
    x += o.x;
    y += o.y;
    return *this;
  }
  constexpr Vec2& operator-=(Vec2 o) {
    x -= o.x;
    y -= o.y;
    return *this;
  }
  constexpr Vec2& operator*=(double s) {
    x *= s;
    y *= s;
    return *this;
  }
  friend constexpr Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
  friend constexpr Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
  friend constexpr Vec2 operator-(Vec2 a) { return {-a.x, -a.y}; }
  friend constexpr Vec2 operator*(Vec2 a, double s) { return {a.x * s, a.y * s}; }
  friend constexpr Vec2 operator*(double s, Vec2 a) { return {a.x * s, a.y * s}; }
  friend constexpr bool operator==(Vec2 a, Vec2 b) = default;
};

constexpr double dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
constexpr double length_squared(Vec2 v) { return dot(v, v); }
inline double length(Vec2 v) { return std::sqrt(length_squared(v)); }

// Unit vector along v, or {0, 0} when v is (nearly) zero: the degenerate case never yields NaN.
inline Vec2 normalized_or_zero(Vec2 v) {
  const double len = length(v);
  return len > 1e-12 ? v * (1.0 / len) : Vec2{};
}

// v with its length limited to max_len (max_len >= 0). Used for the seek tutorial's "limit
// the magnitude" steps (its steps 5 and 7).
inline Vec2 clamp_length(Vec2 v, double max_len) {
  const double len_sq = length_squared(v);
  if (len_sq <= max_len * max_len) return v;
  return v * (max_len / std::sqrt(len_sq));
}

}  // namespace herd::sim
