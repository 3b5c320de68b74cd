#include "steering.hpp"

#include <algorithm>
#include <cmath>

namespace herd::sim {

Vec2 seek_desired_velocity(Vec2 position, Vec2 target, double max_speed) {
  // Seek's step 1: target - position; step 2: normalise; step 3: scale to max speed.
  return normalized_or_zero(target - position) * max_speed;
}

double stopping_speed(double distance, double max_accel, double dt) {
  const double b = max_accel * dt;
  if (!(distance > 0.0) || !(b > 0.0)) return 0.0;  // an agent that cannot brake must not start
  const double u = distance / (dt * b);
  auto triangle = [](double k) { return k * (k + 1.0) / 2.0; };
  double n = std::floor((std::sqrt(8.0 * u + 1.0) - 1.0) / 2.0);
  if (triangle(n) > u) n -= 1.0;  // the square root may round either way
  if (triangle(n + 1.0) <= u) n += 1.0;
  const double f = (u - triangle(n)) / (n + 1.0);
  return (n + f) * b;
}

double slow_radius_of(const AgentDef& def) {
  if (def.slow_radius > 0) return def.slow_radius;
  const double accel = def.max_force / def.mass;
  return accel > 0 ? def.max_speed * def.max_speed / accel : 0.0;
}

Vec2 arrive_desired_velocity(Vec2 position, Vec2 target, const AgentDef& def, double dt) {
  const Vec2 to_target = target - position;
  const double distance = length(to_target);
  if (distance <= 1e-12) return {};
  double speed = def.max_speed;
  // Inside the slow radius, slow down at constant deceleration (max_speed² / (2 slow_radius)):
  // v = max_speed * sqrt(d / slow_radius). Reynolds' linear ramp (v proportional to d) closes the
  // gap exponentially, so agents crawl the last units for seconds; this ramp enters the radius at
  // the same speed and reaches the target in 2 * slow_radius / max_speed seconds.
  if (const double slow = slow_radius_of(def); distance < slow) speed *= std::sqrt(distance / slow);
  // Braking limits the speed only near the goal. With n whole ticks of braking b left,
  // stopping_speed is at least (sqrt(2u) - 2) b (u as there): at or beyond the distance where that
  // reaches max_speed it cannot lower the speed, and the search for n is skipped.
  const double b = def.max_force / def.mass * dt;
  const double k = def.max_speed / b + 2;
  if (!(b > 0.0) || 2 * distance < dt * b * k * k)
    speed = std::min(speed, stopping_speed(distance, def.max_force / def.mass, dt));
  return to_target * (speed / distance);
}

Vec2 steer_towards(Vec2 velocity, Vec2 desired, const AgentDef& def, double dt) {
  // Seek's steps 4-5: the steering vector is the velocity change wanted this frame,
  // desired - velocity, limited by what max_force can do to this mass in one tick (the tutorial's
  // per-frame MAX_STEER is max_force * dt / mass with dt = 1 frame and mass 1).
  const Vec2 steering = clamp_length(desired - velocity, def.max_force / def.mass * dt);
  // Steps 6-7.
  return clamp_length(velocity + steering, def.max_speed);
}

}  // namespace herd::sim
