// The definitions' checks: each field against its documented range.
#include "herd/sim/world_def.hpp"

#include <cmath>
#include <string>

namespace herd::sim {
namespace {

bool in_range(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }

}  // namespace

std::string validate(const AgentDef& d) {
  using L = AgentDefLimits;
  if (!in_range(d.radius, L::kMinRadius, L::kMaxRadius))
    return "agent radius must be in [0.1, 100]";
  if (!in_range(d.mass, L::kMinMass, L::kMaxMass)) return "agent mass must be in [0.001, 1e6]";
  if (!in_range(d.max_speed, 0.0, L::kMaxSpeed)) return "agent max_speed must be in [0, 10000]";
  if (!in_range(d.max_force, 0.0, L::kMaxForce)) return "agent max_force must be in [0, 100000]";
  if (!in_range(d.slow_radius, 0.0, L::kMaxSlowRadius))
    return "agent slow_radius must be in [0, 1e6] (0: from max_speed and max_force)";
  if (!in_range(d.arrive_tolerance, L::kMinArriveTolerance, L::kMaxArriveTolerance))
    return "agent arrive_tolerance must be in [1e-6, 1000]";
  if (d.priority > L::kMaxPriority) return "agent priority must be in [0, 99]";
  if (!in_range(d.sight, 0.0, L::kMaxSight)) return "agent sight must be in [0, 100000]";
  if (!(d.max_hp > 0) || !in_range(d.max_hp, 0.0, L::kMaxHp))
    return "agent max_hp must be in (0, 1e9]";
  return validate(d.weapon);
}

std::string validate(const CombatSettings& c, const AgentDef& defaults) {
  using L = AgentDefLimits;
  const auto above_zero = [](const std::optional<double>& v, double hi) {
    return !v || (in_range(*v, 0.0, hi) && *v > 0);
  };
  if (!above_zero(c.max_hp, L::kMaxHp)) return "agent max_hp must be in (0, 1e9]";
  if (!above_zero(c.hp, L::kMaxHp)) return "agent hp must be in (0, 1e9]";
  if (c.damage && !in_range(*c.damage, 0.0, L::kMaxDamage))
    return "weapon damage must be in [0, 1e9]";
  if (c.range && !in_range(*c.range, 0.0, L::kMaxRange))
    return "weapon range must be in [0, 10000]";
  if (c.cooldown && !in_range(*c.cooldown, L::kMinCooldown, L::kMaxCooldown))
    return "weapon cooldown must be in [0.001, 3600]";
  const double max_hp = c.max_hp ? static_cast<float>(*c.max_hp) : defaults.max_hp;
  if (c.hp && static_cast<float>(*c.hp) > max_hp) return "agent hp must be at most its max_hp";
  return {};
}

std::string validate(const Weapon& w) {
  using L = AgentDefLimits;
  if (!in_range(w.damage, 0.0, L::kMaxDamage)) return "weapon damage must be in [0, 1e9]";
  if (!in_range(w.range, 0.0, L::kMaxRange)) return "weapon range must be in [0, 10000]";
  if (!in_range(w.cooldown, L::kMinCooldown, L::kMaxCooldown))
    return "weapon cooldown must be in [0.001, 3600]";
  return {};
}

std::string validate(const AvoidanceDef& d) {
  if (!in_range(d.personal_space, 1e-6, 100)) return "avoidance personal_space must be in (0, 100]";
  if (!in_range(d.cardioid_exponent, 0, 16))
    return "avoidance cardioid_exponent must be in [0, 16]";
  if (!in_range(d.push_epsilon, 1e-4, 1)) return "avoidance push_epsilon must be in [0.0001, 1]";
  if (!in_range(d.crossing_activation, 0, 60))
    return "avoidance crossing_activation must be in [0, 60] s";
  if (!in_range(d.lookahead, 0, 60)) return "avoidance lookahead must be in [0, 60] s";
  if (d.max_neighbours > 1000) return "avoidance max_neighbours must be in [0, 1000]";
  if (!in_range(d.time_gap, 0.05, 10)) return "avoidance time_gap must be in [0.05, 10] s";
  if (!in_range(d.repulsion_strength, 0, 100))
    return "avoidance repulsion_strength must be in [0, 100]";
  if (!in_range(d.repulsion_range, 1e-6, 10))
    return "avoidance repulsion_range must be in (0, 10] radii";
  if (!in_range(d.wall_repulsion_strength, 0, 100))
    return "avoidance wall_repulsion_strength must be in [0, 100]";
  if (!in_range(d.wall_repulsion_range, 1e-6, 10))
    return "avoidance wall_repulsion_range must be in (0, 10] radii";
  return {};
}

std::string validate(const WorldDef& d) {
  using L = WorldDefLimits;
  if (!in_range(d.width, 1e-6, L::kMaxExtent)) return "world width must be in (0, 1e6]";
  if (!in_range(d.height, 1e-6, L::kMaxExtent)) return "world height must be in (0, 1e6]";
  if (!in_range(d.dt, L::kMinDt, L::kMaxDt)) return "dt must be in [0.0001, 1] s";
  if (d.max_agents == 0 || d.max_agents > L::kMaxAgents)
    return "max_agents must be in [1, 1000000]";
  if (d.max_obstacles > L::kMaxAgents) return "max_obstacles must be in [0, 1000000]";
  if (d.position_iterations < 0 || d.position_iterations > 16)
    return "position_iterations must be in [0, 16]";
  if (d.path_expansions_per_tick == 0 || d.path_expansions_per_tick > 1'000'000'000)
    return "path_expansions_per_tick must be in [1, 1e9]";
  if (d.assignment_costs_per_tick == 0 || d.assignment_costs_per_tick > 1'000'000'000'000)
    return "assignment_costs_per_tick must be in [1, 1e12]";
  if (std::string why = validate(d.avoidance); !why.empty()) return why;
  return validate(d.agent_defaults);
}

}  // namespace herd::sim
