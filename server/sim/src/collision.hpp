// herd::sim collisions: touching circles, collision point, elastic response, in the steps of
// "Accidents Do Happen".
#pragma once

#include <cstdint>

#include "herd/sim/agent.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

// Step 1: touching or overlapping, on squared distances (no square root).
inline bool circles_touch(Vec2 p1, double r1, Vec2 p2, double r2) {
  const double reach = r1 + r2;
  return length_squared(p2 - p1) <= reach * reach;
}

// Step 2: the point between the centres, split in the ratio of the radii:
// (p1 * r2 + p2 * r1) / (r1 + r2). Two zero radii give the midpoint.
Vec2 collision_point(Vec2 p1, double r1, Vec2 p2, double r2);

// Step 3: the elastic response: body 1's change of velocity, -2 m2/(m1+m2) times the relative
// velocity projected on the line of centres; zero when they are already separating (the write-up's
// dotProduct > 0 test) or the centres coincide (no line of centres: its code divided by zero).
Vec2 elastic_velocity_change(Vec2 p1, Vec2 v1, double m1, Vec2 p2, Vec2 v2, double m2);

// The same against an immovable body (m2 -> infinity): the approaching normal component reflected.
Vec2 bounce_off_static(Vec2 p, Vec2 v, Vec2 static_centre);

}  // namespace herd::sim
