#include "behaviour.hpp"

#include <algorithm>
#include <cmath>

#include "steering.hpp"

namespace herd::sim {
namespace {

Desire arrive_at(const Agent& a, Vec2 point, double dt) {
  return {arrive_desired_velocity(a.position, point, a.def, dt), point, true};
}

// Going for an enemy (attack's approach, an attack-move's engagement). Unarmed, the seeds'
// pursuit that rams it (contact 0: the body slam). Armed, it closes to well inside its weapon's
// range (or to contact, range 0) and, once within reach, stands and fights as an RTS unit does:
// two that kept pace with each other would drift off together, and those chasing them would never
// close.
Desire engage(const Agent& a, const Agent& enemy, double accel, double dt) {
  const Weapon& w = a.def.weapon;
  const double touching = a.def.radius + enemy.def.radius;
  if (w.armed() && length(enemy.position - a.position) <= touching + w.range)
    return {Vec2{}, enemy.position, false};
  const double contact = w.armed() && w.range > 0 ? touching + 0.8 * w.range : 0;
  return {pursue_desired_velocity(a.position, a.velocity, enemy.position, enemy.velocity, accel,
                                  a.def.max_speed, dt, contact),
          enemy.position, false};
}

bool within(const Agent& a, Vec2 point, double radius) {
  return radius <= 0 || length_squared(point - a.position) < radius * radius;
}

}  // namespace

Vec2 flee_desired_velocity(Vec2 position, Vec2 from, double max_speed) {
  const Vec2 away = position - from;
  if (length_squared(away) < 1e-24) return {max_speed, 0};
  return normalized_or_zero(away) * max_speed;
}

Vec2 pursue_desired_velocity(Vec2 position, Vec2 velocity, Vec2 target_position,
                             Vec2 target_velocity, double max_accel, double max_speed, double dt,
                             double contact) {
  const Vec2 to_target = target_position - position;
  const double centre_distance = length(to_target);
  if (centre_distance < 1e-12) return clamp_length(target_velocity, max_speed);
  const Vec2 towards = to_target * (1.0 / centre_distance);
  const double distance = std::max(0.0, centre_distance - contact);
  if (distance <= 0) return clamp_length(target_velocity, max_speed);  // caught: keep pace
  const double closing = length(target_velocity - velocity);
  if (closing < 1e-9)  // the intercept's "If sngMagDiff <> 0 ... Else": face the target
    return clamp_length(
        target_velocity + towards * std::min(max_speed, stopping_speed(distance, max_accel, dt)),
        max_speed);
  const double time_to_intercept = distance / closing;
  const double approach =
      std::min({max_accel * time_to_intercept, max_speed, stopping_speed(distance, max_accel, dt)});
  return clamp_length(target_velocity + towards * approach, max_speed);
}

Vec2 evade_from(Vec2 position, Vec2 velocity, Vec2 target_position, Vec2 target_velocity) {
  const Vec2 r = target_position - position;
  const double distance = length(r);
  const double closing = length(target_velocity - velocity);
  double t = closing < 1e-9 ? 0.0 : std::min(distance / closing, kEvadeHorizon);
  // A threat heading straight at the agent would be predicted at the agent's own position, from
  // which no direction leads away (the evader dithered in place and was caught). The prediction
  // stops at the first time the threat's path comes within half the present distance, so the
  // point fled from stays between the two: |r + V t| = d / 2, the smaller root when approaching.
  const double vv = dot(target_velocity, target_velocity);
  if (vv > 1e-18) {
    const double b = dot(r, target_velocity);
    const double c = dot(r, r) - 0.25 * distance * distance;
    const double disc = b * b - vv * c;
    if (disc > 0) {
      const double t_half = (-b - std::sqrt(disc)) / vv;
      if (t_half >= 0 && t_half < t) t = t_half;
    }
  }
  return target_position + target_velocity * t;
}

bool update_phase(Agent& self, const Agent* subject, bool hit_subject, bool at_goal) {
  Behaviour& b = self.behaviour;
  const Phase before = b.phase;
  if (b.kind == BehaviourKind::attack) {
    // The attack action: go, body-slam, go home. An enemy that no longer exists ends it too; an
    // armed attacker hits until its enemy dies (world_combat.cpp), then goes home.
    if (b.phase == Phase::approach && ((hit_subject && !self.def.weapon.armed()) || !subject))
      b.phase = Phase::retreat;
    else if (b.phase == Phase::retreat && at_goal)
      b.phase = Phase::done;
  } else if (b.kind == BehaviourKind::react) {
    const bool near = subject && within(self, subject->position, b.radius);
    b.phase = near ? Phase::respond : Phase::home;
  } else if (b.kind == BehaviourKind::patrol && at_goal) {
    b.phase = b.phase == Phase::out ? Phase::back : Phase::out;
  }
  return b.phase != before;
}

Desire desire(const Agent& a, const Agent* subject, double dt) {
  const Behaviour& b = a.behaviour;
  const double accel = a.def.max_force / a.def.mass;
  // The point a point-or-agent behaviour aims at: the subject's position if it has one.
  const Vec2 aim = subject ? subject->position : b.point;
  switch (b.kind) {
    case BehaviourKind::idle:
      return {};
    case BehaviourKind::hold:
      return arrive_at(a, b.point, dt);
    case BehaviourKind::seek:
      return {seek_desired_velocity(a.position, aim, a.def.max_speed), aim, false};
    case BehaviourKind::arrive:
      return arrive_at(a, aim, dt);
    case BehaviourKind::flee:
      if (!within(a, aim, b.radius)) return {};
      return {flee_desired_velocity(a.position, aim, a.def.max_speed), std::nullopt, false};
    case BehaviourKind::pursue:
      if (!subject) return {};
      return {
          pursue_desired_velocity(a.position, a.velocity, subject->position, subject->velocity,
                                  accel, a.def.max_speed, dt, a.def.radius + subject->def.radius),
          subject->position, false};
    case BehaviourKind::evade: {
      if (!subject || !within(a, subject->position, b.radius)) return {};
      const Vec2 from = evade_from(a.position, a.velocity, subject->position, subject->velocity);
      return {flee_desired_velocity(a.position, from, a.def.max_speed), std::nullopt, false};
    }
    case BehaviourKind::attack:
      if (b.phase == Phase::approach && subject) return engage(a, *subject, accel, dt);
      return arrive_at(a, b.home, dt);
    case BehaviourKind::react:
      if (b.phase == Phase::respond && subject) {
        Agent as_response = a;
        as_response.behaviour.kind = b.response;
        as_response.behaviour.radius = 0;
        return desire(as_response, subject, dt);
      }
      return arrive_at(a, b.home, dt);
    case BehaviourKind::patrol:
      return arrive_at(a, b.phase == Phase::back ? b.home : b.point, dt);
    case BehaviourKind::attack_move:  // attack's approach at an enemy it saw, else to the point
      if (b.phase == Phase::engage && subject) return engage(a, *subject, accel, dt);
      return arrive_at(a, b.point, dt);
    case BehaviourKind::queue:  // arrive; the pace stage brakes it behind slower agents
      return arrive_at(a, b.point, dt);
    case BehaviourKind::wander:  // these keep state between ticks: the world steers them
    case BehaviourKind::flock:   // (steering_service.cpp)
    case BehaviourKind::follow_path:
    case BehaviourKind::follow:
    case BehaviourKind::kCount:
      break;
  }
  return {};
}

Vec2 wander_jitter(Vec2 on_circle, double radius, double step, double u1, double u2) {
  const Vec2 moved = on_circle + Vec2{(2 * u1 - 1) * step, (2 * u2 - 1) * step};
  const double len = length(moved);
  if (len < 1e-12 * std::max(radius, 1e-300)) return {radius, 0};
  return moved * (radius / len);
}

Vec2 turn_at_most(Vec2 heading, Vec2 desired, double max_turn) {
  if (heading == Vec2{} || desired == Vec2{}) return desired;
  const double cross = heading.x * desired.y - heading.y * desired.x;
  const double angle = std::atan2(cross, dot(heading, desired));
  if (std::abs(angle) <= max_turn) return desired;
  const double turn = angle > 0 ? max_turn : -max_turn;
  const double c = std::cos(turn), s = std::sin(turn);
  return {heading.x * c - heading.y * s, heading.x * s + heading.y * c};
}

Vec2 flock_direction(Vec2 position, Vec2 heading, const FlockView& view, double radius,
                     double w_separation, double w_alignment, double w_cohesion, const Vec2* target,
                     Vec2 inward) {
  Vec2 sum = inward;
  if (view.count > 0) {
    const double n = static_cast<double>(view.count);
    sum += view.separation * w_separation;
    sum += normalized_or_zero(view.velocity_sum) * w_alignment;
    const Vec2 to_centre = view.position_sum * (1.0 / n) - position;
    sum += to_centre * (w_cohesion / std::max(radius, 1e-300));
  }
  if (target) sum += normalized_or_zero(*target - position);
  // Nothing to steer by (alone, or every pull cancelled): it keeps going as it was.
  return length_squared(sum) < 1e-12 ? heading : normalized_or_zero(sum);
}

PathProjection project_on_segment(Vec2 p, Vec2 a, Vec2 b) {
  const Vec2 ab = b - a;
  const double len2 = length_squared(ab);
  const double t = len2 > 0 ? std::clamp(dot(p - a, ab) / len2, 0.0, 1.0) : 0.0;
  const Vec2 q = a + ab * t;
  return {q, t, length_squared(p - q)};
}

double approach_speed(double distance, double v_end, double accel) {
  return std::sqrt(v_end * v_end + 2 * accel * std::max(distance, 0.0));
}

Vec2 follow_point(Vec2 leader, Vec2 heading, Vec2 offset) {
  // Screen axes, y down: the right of heading (hx, hy) is (-hy, hx).
  return leader + heading * offset.x + Vec2{-heading.y, heading.x} * offset.y;
}

}  // namespace herd::sim
