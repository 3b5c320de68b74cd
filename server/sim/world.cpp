#include "world.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <charconv>
#include <cmath>
#include <string>

#include "steering.hpp"

namespace herd::sim {
namespace {

bool finite(Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); }

// Keeps an agent's disc inside the world; a wall stops the velocity component into it.
void confine(Agent& a, double width, double height) {
  const double r = std::min({a.def.radius, width / 2, height / 2});
  if (a.position.x < r) { a.position.x = r; a.velocity.x = std::max(a.velocity.x, 0.0); }
  if (a.position.x > width - r) { a.position.x = width - r; a.velocity.x = std::min(a.velocity.x, 0.0); }
  if (a.position.y < r) { a.position.y = r; a.velocity.y = std::max(a.velocity.y, 0.0); }
  if (a.position.y > height - r) { a.position.y = height - r; a.velocity.y = std::min(a.velocity.y, 0.0); }
}

// An arriving agent within tolerance of its target and slow enough that one tick's braking stops
// it dead has arrived: it stops there instead of creeping the last fraction of a unit.
bool can_stop_dead(const Agent& a, double dt) {
  return length(a.target - a.position) <= a.def.arrive_tolerance &&
         length(a.velocity) <= a.def.max_force / a.def.mass * dt;
}

// Shortest text that reads back as the same double: "(-1, 0.5)", not "(-1.000000, 0.500000)".
std::string number_text(double v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string point_text(Vec2 p) { return "(" + number_text(p.x) + ", " + number_text(p.y) + ")"; }

}  // namespace

std::string validate(const AgentDef& d) {
  auto in = [](double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; };
  if (!in(d.radius, 0.1, 100.0)) return "agent radius must be in [0.1, 100]";
  if (!in(d.mass, 1e-3, 1e6)) return "agent mass must be in [0.001, 1e6]";
  if (!in(d.max_speed, 0.0, 1e4)) return "agent max_speed must be in [0, 10000]";
  if (!in(d.max_force, 0.0, 1e5)) return "agent max_force must be in [0, 100000]";
  if (!in(d.slow_radius, 1e-3, 1e6)) return "agent slow_radius must be in [0.001, 1e6]";
  if (!in(d.arrive_tolerance, 1e-6, 1e3)) return "agent arrive_tolerance must be in [1e-6, 1000]";
  return {};
}

std::string validate(const WorldDef& d) {
  using L = WorldDefLimits;
  if (!std::isfinite(d.width) || d.width <= 0 || d.width > L::kMaxExtent)
    return "world width must be in (0, 1e6]";
  if (!std::isfinite(d.height) || d.height <= 0 || d.height > L::kMaxExtent)
    return "world height must be in (0, 1e6]";
  if (!std::isfinite(d.dt) || d.dt < L::kMinDt || d.dt > L::kMaxDt) return "dt must be in [0.0001, 1] s";
  if (d.max_agents == 0 || d.max_agents > L::kMaxAgents) return "max_agents must be in [1, 1000000]";
  return validate(d.agent_defaults);
}

World::World(const WorldDef& def) : def_(def), rng_(def.seed) {
  assert(validate(def).empty());
}

const Agent* World::find(AgentId id) const {
  // Ids only grow and agents are appended, so the array stays sorted by id.
  auto it = std::lower_bound(agents_.begin(), agents_.end(), id,
                             [](const Agent& a, AgentId v) { return a.id < v; });
  return it != agents_.end() && it->id == id ? &*it : nullptr;
}

bool World::inside(Vec2 p) const {
  return finite(p) && p.x >= 0 && p.x <= def_.width && p.y >= 0 && p.y <= def_.height;
}

void World::queue(const Command& command, CommandOrigin origin) {
  queue_.push_back({command, origin});
}

CommandOutcome World::apply(const Command& command, CommandOrigin origin) {
  CommandOutcome out = std::visit(
      [this](const auto& c) {
        if constexpr (std::is_same_v<std::decay_t<decltype(c)>, SetTarget>) return apply_set_target(c);
        else return apply_spawn(c);
      },
      command);
  out.origin = origin;
  out.tick = tick_;
  return out;
}

CommandOutcome World::apply_set_target(const SetTarget& cmd) {
  CommandOutcome out;
  if (!inside(cmd.target)) {
    out.error = CommandError::out_of_bounds;
    out.message = "target " + point_text(cmd.target) + " is outside the world";
    return out;
  }
  // Validate every id before changing anything: a command is applied whole or not at all.
  std::vector<std::size_t> indices;
  if (cmd.agents.all) {
    indices.resize(agents_.size());
    for (std::size_t i = 0; i < agents_.size(); ++i) indices[i] = i;
  } else {
    indices.reserve(cmd.agents.ids.size());
    for (AgentId id : cmd.agents.ids) {
      const Agent* a = find(id);
      if (!a) {
        out.error = CommandError::unknown_agent;
        out.message = "agent " + std::to_string(id) + " does not exist";
        return out;
      }
      indices.push_back(static_cast<std::size_t>(a - agents_.data()));
    }
  }
  for (std::size_t i : indices) {
    Agent& a = agents_[i];
    a.target = cmd.target;
    a.behaviour = cmd.behaviour;
    a.state = MoveState::moving;
  }
  // Duplicated ids in the list count once.
  std::sort(indices.begin(), indices.end());
  out.affected = static_cast<std::uint32_t>(std::unique(indices.begin(), indices.end()) - indices.begin());
  return out;
}

Agent World::make_agent(const SpawnAgent& spec) {
  Agent a;
  a.id = next_id_++;
  a.group = spec.group;
  a.def = def_.agent_defaults;
  if (spec.radius) a.def.radius = *spec.radius;
  if (spec.max_speed) a.def.max_speed = *spec.max_speed;
  if (spec.max_force) a.def.max_force = *spec.max_force;
  a.position = spec.position;
  if (spec.target) {
    a.target = *spec.target;
    a.behaviour = Behaviour::arrive;
    a.state = MoveState::moving;
  }
  confine(a, def_.width, def_.height);
  return a;
}

CommandOutcome World::apply_spawn(const Spawn& cmd) {
  CommandOutcome out;
  const std::size_t n = cmd.count > 0 ? cmd.count : cmd.agents.size();
  if (agents_.size() + n > def_.max_agents) {
    out.error = CommandError::limit_exceeded;
    out.message = "spawning " + std::to_string(n) + " agents would exceed the world's limit of " +
                  std::to_string(def_.max_agents);
    return out;
  }
  for (const SpawnAgent& s : cmd.agents) {
    const bool target_ok = !s.target || inside(*s.target);
    if (!inside(s.position) || !target_ok) {
      out.error = CommandError::out_of_bounds;
      out.message = "spawn position or target " + point_text(target_ok ? s.position : *s.target) +
                    " is outside the world";
      return out;
    }
    // Radius, speed and force overrides must still make a valid AgentDef.
    AgentDef d = def_.agent_defaults;
    if (s.radius) d.radius = *s.radius;
    if (s.max_speed) d.max_speed = *s.max_speed;
    if (s.max_force) d.max_force = *s.max_force;
    if (std::string why = validate(d); !why.empty()) {
      out.error = CommandError::out_of_bounds;
      out.message = why;
      return out;
    }
  }
  out.spawned.reserve(n);
  if (cmd.count > 0) {
    const double r = def_.agent_defaults.radius;
    for (std::uint32_t i = 0; i < cmd.count; ++i) {
      SpawnAgent s;
      s.group = cmd.group;
      // x then y, each drawn in order from the world's generator: part of the determinism contract.
      s.position.x = rng_.uniform(std::min(r, def_.width / 2), std::max(def_.width - r, def_.width / 2));
      s.position.y = rng_.uniform(std::min(r, def_.height / 2), std::max(def_.height - r, def_.height / 2));
      agents_.push_back(make_agent(s));
      out.spawned.push_back(agents_.back().id);
    }
  } else {
    for (const SpawnAgent& s : cmd.agents) {
      agents_.push_back(make_agent(s));
      out.spawned.push_back(agents_.back().id);
    }
  }
  return out;
}

void World::step() {
  // The world step, a script of stages (DESIGN.md). Later stages (grid, avoidance, collisions,
  // events) slot in between these.
  stage_apply_commands();
  stage_desired_velocities();
  stage_integrate();
  stage_update_states();
  ++tick_;
}

void World::stage_apply_commands() {
  outcomes_.clear();
  const std::uint64_t applying_tick = tick_ + 1;
  for (const Queued& q : queue_) {
    CommandOutcome out = apply(q.command, q.origin);
    out.tick = applying_tick;
    outcomes_.push_back(std::move(out));
  }
  queue_.clear();
}

void World::stage_desired_velocities() {
  desired_.resize(agents_.size());
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const Agent& a = agents_[i];
    switch (a.behaviour) {
      case Behaviour::seek: desired_[i] = seek_desired_velocity(a.position, a.target, a.def.max_speed); break;
      case Behaviour::arrive: desired_[i] = arrive_desired_velocity(a.position, a.target, a.def, def_.dt); break;
      case Behaviour::none: desired_[i] = {}; break;
    }
  }
}

void World::stage_integrate() {
  // Each agent reads only its own state and its desired velocity, so updating in place here is
  // already order-independent; neighbour-reading stages compute into scratch before this commit.
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    Agent& a = agents_[i];
    if (a.behaviour == Behaviour::arrive && can_stop_dead(a, def_.dt)) {
      a.velocity = {};  // this tick's velocity change, within one tick's braking
      continue;
    }
    a.velocity = steer_towards(a.velocity, desired_[i], a.def, def_.dt);
    a.position += a.velocity * def_.dt;  // semi-implicit Euler: the new velocity moves the agent
    confine(a, def_.width, def_.height);
  }
}

void World::stage_update_states() {
  for (Agent& a : agents_) {
    if (a.behaviour != Behaviour::arrive) {
      a.state = a.behaviour == Behaviour::none ? MoveState::idle : MoveState::moving;
      continue;
    }
    const bool stopped_there = a.velocity == Vec2{} && length(a.target - a.position) <= a.def.arrive_tolerance;
    a.state = stopped_there ? MoveState::arrived : MoveState::moving;
  }
}

std::uint64_t World::state_hash() const {
  std::uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  };
  auto mixd = [&mix](double d) { mix(std::bit_cast<std::uint64_t>(d)); };
  mix(tick_);
  mix(next_id_);
  mix(rng_.state());
  mix(agents_.size());
  for (const Agent& a : agents_) {
    mix(a.id);
    mix((std::uint64_t{a.group} << 16) | (std::uint64_t(a.behaviour) << 8) | std::uint64_t(a.state));
    mixd(a.position.x); mixd(a.position.y);
    mixd(a.velocity.x); mixd(a.velocity.y);
    mixd(a.target.x); mixd(a.target.y);
    mixd(a.def.radius); mixd(a.def.mass); mixd(a.def.max_speed); mixd(a.def.max_force);
    mixd(a.def.slow_radius); mixd(a.def.arrive_tolerance);
  }
  return h;
}

}  // namespace herd::sim
