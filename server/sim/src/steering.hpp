// herd::sim steering: the per-agent formulas of seek, arrive and steering, each a pure function.
#pragma once

#include "herd/sim/agent.hpp"
#include "herd/sim/vec2.hpp"

namespace herd::sim {

// Seek's steps 1-3 (of the seek tutorial's seven): the desired velocity points from the agent to
// the target at max speed. Zero when the agent is on the target (the tutorial would normalise a
// zero vector and divide by 0).
Vec2 seek_desired_velocity(Vec2 position, Vec2 target, double max_speed);

// The fastest speed an agent may move at this tick and still stop within `distance`, braking by
// b = max_accel*dt every tick after it (semi-implicit Euler: v -= b, then x += v*dt).
// Moving at v = (n + f)*b this tick and braking after covers dt*b*(n(n+1)/2 + f(n+1)), so with
// u = distance/(dt*b): n is the largest integer with n(n+1)/2 <= u, f = (u - n(n+1)/2)/(n+1).
// The profile is exact and self-consistent: braking by exactly b keeps an agent on it. This is
// what lets arrive stop without overshooting (the "stability problems" a reader of the seek
// tutorial reports with arrival); for distance < b*dt it is distance/dt, landing on the target.
double stopping_speed(double distance, double max_accel, double dt);

// The distance over which arrive slows down: def.slow_radius when set, else max_speed² over the
// agent's acceleration (max_force / mass): the ramp that brakes at half the agent's force, stopping
// from full speed in twice the time it takes to reach it from rest (0.6 s over 36 units at the
// defaults, 120 units/s and 400 units/s²). 0 when it cannot brake (no force).
double slow_radius_of(const AgentDef& def);

// Arrival (asked for in the comments on the seek tutorial): seek, but the desired speed falls off
// at constant deceleration inside slow_radius and is never more than the agent can brake from
// (stopping_speed), which also never covers more than the remaining distance in one tick. Zero at
// the target.
Vec2 arrive_desired_velocity(Vec2 position, Vec2 target, const AgentDef& def, double dt);

// Seek's steps 4-7: steering = desired - velocity, limited to the change max_force can make
// to this mass in dt; the new velocity is limited to max_speed. Returns the new velocity after dt.
Vec2 steer_towards(Vec2 velocity, Vec2 desired, const AgentDef& def, double dt);

}  // namespace herd::sim
