// herd::sim behaviours: what each agent wants this tick, as a desired velocity (before avoidance).
#pragma once

#include <cstdint>
#include <optional>

#include "herd/sim/agent.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

// `subject` is the agent the behaviour refers to (behaviour.agent), or nullptr when it has none
// or it no longer exists. `dt` is the world's tick.
Desire desire(const Agent& self, const Agent* subject, double dt);

// Flee is seek's opposite: away from `from` at max speed. Zero distance flees along +x
// (deterministic) rather than dividing by zero.
Vec2 flee_desired_velocity(Vec2 position, Vec2 from, double max_speed);

// Pursuit with intercept: thrust = velocity difference (target - self) + a vector towards the
// target of length accel * time-to-intercept, where time-to-intercept = distance / |velocity
// difference| (the "Seeking and Fleeing" tutorial's "distance divided by the velocity difference,
// times the acceleration"). As a desired velocity that is self.v + thrust = target.v + towards *
// accel * T: match the target's velocity (so there is no overshoot) and close the distance. With no
// velocity difference the tutorial faces the target; here that is seek. Limited to max_speed.
// Two fixes, so that it "does not overshoot" as the tutorial intends: the closing speed is also
// kept below the speed from which the pursuer can still brake to the target's velocity within the
// gap (arrive, in the target's frame: the tutorial's accel * T grows without bound as the velocity
// difference vanishes, so a pursuer that had just bounced off charged again at full speed); and
// `contact` is the distance at which the chase is over: the tutorial's ships are points (0), agents
// have radii, so pursue closes to touching (r1 + r2) and then keeps pace. Attack passes 0 (a
// weapon with a range: within it).
Vec2 pursue_desired_velocity(Vec2 position, Vec2 velocity, Vec2 target_position,
                             Vec2 target_velocity, double max_accel, double max_speed, double dt,
                             double contact = 0);

// Where evade flees from: the subject's position after the time it would take to close the gap
// at the current velocity difference, capped at kEvadeHorizon seconds, and at the first time its
// path comes within half the present distance (a threat coming straight at the agent is fled
// from halfway along its path, not from the agent's own position).
inline constexpr double kEvadeHorizon = 2.0;  // s
Vec2 evade_from(Vec2 position, Vec2 velocity, Vec2 target_position, Vec2 target_velocity);

// Phase changes of attack and react that depend on distance (not on collisions): called once per
// tick before desire(). `hit_subject` says the attacker touched its enemy in the last collision
// stage. Returns true if the phase changed.
bool update_phase(Agent& self, const Agent* subject, bool hit_subject, bool at_goal);

// ---- Reynolds' catalogue: the formulas of wander, flock, follow_path and follow. The world
// (steering_service.cpp) gathers what each needs (neighbours, the path, the leader) and keeps their
// state between ticks.

// Wander's point on its circle, in the agent's frame (x ahead), after one tick's jitter: moved by
// up to `step` along each axis (u1, u2 uniform in [0, 1)) and put back on the circle. A point at
// the centre goes to straight ahead.
Vec2 wander_jitter(Vec2 on_circle, double radius, double step, double u1, double u2);

// The heading `desired` turned toward, at most max_turn radians from `heading` (both unit or
// zero): how far an agent can turn in one tick (its acceleration over its speed, times dt).
Vec2 turn_at_most(Vec2 heading, Vec2 desired, double max_turn);

// What a flocking agent sees of its group within its radius.
struct FlockView {
  Vec2 separation;    // sum over neighbours closer than twice the sum of radii: away from
                      // each, ((2 (r1 + r2) / d)^2 - 1) long
  Vec2 velocity_sum;  // of the neighbours' velocities
  Vec2 position_sum;  // of the neighbours' positions
  Vec2 heading_sum;   // of the neighbours' headings (unit velocities)
  std::uint32_t count = 0;
};

// Flocking's desired direction (unit): the weighted separation, alignment (the neighbours' mean
// heading), cohesion (toward their centre, full weight a radius away) and, when given, the way to
// the target; `inward` keeps it off the world's edges. With nothing to steer by, its heading.
Vec2 flock_direction(Vec2 position, Vec2 heading, const FlockView& view, double radius,
                     double w_separation, double w_alignment, double w_cohesion, const Vec2* target,
                     Vec2 inward);

// The nearest point to p of the segment from a to b.
struct PathProjection {
  Vec2 point;    // nearest point of the segment
  double t = 0;  // along the segment, [0, 1]
  double distance2 = 0;
};
PathProjection project_on_segment(Vec2 p, Vec2 a, Vec2 b);

// The speed from which an agent decelerating at `accel` slows to `v_end` within `distance`.
double approach_speed(double distance, double v_end, double accel);

// Leader following: the point `offset` (x ahead, y to the right, on screen) from the leader in
// the frame of its heading (unit).
Vec2 follow_point(Vec2 leader, Vec2 heading, Vec2 offset);

}  // namespace herd::sim
