// herd::sim behaviours: what each agent wants this tick, as a desired velocity (before avoidance).
#pragma once

#include <optional>

#include "herd/sim/agent.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

// `subject` is the agent the behaviour refers to (behaviour.agent), or nullptr when it has none
// or it no longer exists. `dt` is the world's tick.
Desire desire(const Agent& self, const Agent* subject, double dt);

// Seed 004: flee is seek's opposite: away from `from` at max speed. Zero distance flees along +x
// (deterministic) rather than dividing by zero.
Vec2 flee_desired_velocity(Vec2 position, Vec2 from, double max_speed);

// Seed 004's intercept: thrust = velocity difference (target - self) + a vector towards the target
// of length accel * time-to-intercept, where time-to-intercept = distance / |velocity difference|
// (the seed's "distance divided by the velocity difference, times the acceleration"). As a desired
// velocity that is self.v + thrust = target.v + towards * accel * T: match the target's velocity
// (so there is no overshoot) and close the distance. With no velocity difference the seed faces
// the target; here that is seek. Limited to max_speed.
// Two fixes, so that it "does not overshoot" as the seed intends: the closing speed is also kept
// below the speed from which the pursuer can still brake to the target's velocity within the gap
// (arrive, in the target's frame: the seed's accel * T grows without bound as the velocity
// difference vanishes, so a pursuer that had just bounced off charged again at full speed); and
// `contact` is the distance at which the chase is over: the seed's ships are points (0), agents
// have radii, so pursue closes to touching (r1 + r2) and then keeps pace. Attack passes 0.
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

}  // namespace herd::sim
