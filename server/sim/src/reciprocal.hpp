// herd::sim reciprocal velocity obstacles: optimal reciprocal collision avoidance (ORCA, van den
// Berg, Guy, Lin and Manocha, "Reciprocal n-Body Collision Avoidance", 2011), the avoidance
// crowd engines use for agents that cross one another in numbers. Each neighbour on a collision
// course within the time horizon forbids a half-plane of velocities; the agent takes the allowed
// velocity nearest its preferred one. Neighbours not on a collision course forbid nothing, so
// nothing pushes an agent off its way unless it would touch: what anti-gravity avoidance cannot
// give a crowd crossing itself.
#pragma once

#include <span>
#include <vector>

#include "herd/sim/vec2.hpp"

namespace herd::sim {

// A half-plane of velocities: those on the left of `direction` (unit) through `point`.
struct VelocityLine {
  Vec2 point;
  Vec2 direction;
};

struct ReciprocalNeighbour {
  Vec2 position;
  Vec2 velocity;
  double radius = 0;
  // The share of the avoidance this agent takes: 0.5 when the other avoids it the same way, 1
  // when it does not (a static obstacle, an agent steered otherwise).
  double share = 0.5;
};

// The velocity nearest `preferred`, no faster than max_speed, that touches none of the neighbours
// within `horizon` seconds (each moving at its velocity, the agent taking its share). Touching
// already, it asks to be apart within one tick (dt). When no velocity is allowed (a crowd pressing
// from every side), the one that least breaks the worst constraint. `lines` is scratch.
Vec2 reciprocal_velocity(Vec2 position, Vec2 velocity, double radius, Vec2 preferred,
                         double max_speed, std::span<const ReciprocalNeighbour> neighbours,
                         double horizon, double dt, std::vector<VelocityLine>& lines);

}  // namespace herd::sim
