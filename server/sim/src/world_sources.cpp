// The World's sources and exits (herd/sim/source.hpp): their commands, the step's first stage
// that makes a source's due agents and its last that removes the agents standing in an exit.
// Agents are made and removed by the same means as the spawn and remove commands' (make_agent,
// remove_agents), so what those keep parallel to the agents stays so.
#include <algorithm>
#include <cmath>
#include <string>

#include "world_impl.hpp"

namespace herd::sim {
namespace {

bool in_rect(Vec2 p, Vec2 min, Vec2 max) {
  return p.x >= min.x && p.x <= max.x && p.y >= min.y && p.y <= max.y;
}

std::string rect_text(Vec2 min, Vec2 max) { return point_text(min) + " to " + point_text(max); }

}  // namespace

AgentDef WorldImpl::template_def(const AgentTemplate& t) const {
  AgentDef d = def_.agent_defaults;
  if (t.radius) d.radius = *t.radius;
  if (t.max_speed) d.max_speed = *t.max_speed;
  if (t.max_force) d.max_force = *t.max_force;
  if (t.mass) d.mass = *t.mass;
  if (t.priority) d.priority = *t.priority;
  if (t.layer) d.layer = *t.layer;
  if (t.mask) d.mask = *t.mask;
  float hp = 0;
  t.combat.apply(d, hp);
  return d;
}

CommandOutcome WorldImpl::check_rect(const char* what, Vec2 min, Vec2 max) const {
  if (!inside(min) || !inside(max))
    return failure(CommandError::out_of_bounds,
                   std::string(what) + " " + rect_text(min, max) + " is not inside the world");
  if (!(min.x < max.x && min.y < max.y))
    return failure(CommandError::out_of_bounds,
                   std::string(what) + " needs a positive width and height");
  return {};
}

CommandOutcome WorldImpl::apply_add_source(const AddSource& cmd) {
  if (CommandOutcome why = check_rect("source", cmd.min, cmd.max); !why.ok()) return why;
  using L = SourceLimits;
  if (!(std::isfinite(cmd.rate) && cmd.rate > 0 && cmd.rate <= L::kMaxRate))
    return failure(CommandError::out_of_bounds, "a source's rate must be above 0 and at most " +
                                                    number_text(L::kMaxRate) + " agents a second");
  if (cmd.total < 1 || cmd.total > L::kMaxTotal)
    return failure(CommandError::out_of_bounds,
                   "a source's total must be in [1, " + std::to_string(L::kMaxTotal) + "]");
  const AgentTemplate& t = cmd.agent;
  if (std::string why = validate(t.combat, def_.agent_defaults); !why.empty())
    return failure(CommandError::out_of_bounds, why);
  if (std::string why = validate(template_def(t)); !why.empty())
    return failure(CommandError::out_of_bounds, why);
  const BehaviourTraits& kind = traits(t.behaviour);
  if (t.behaviour != BehaviourKind::idle && !kind.takes_point)
    return failure(CommandError::invalid_target,
                   "a source's agents go to a point (hold, seek, arrive, flee, patrol, "
                   "attack_move) or idle; " +
                       std::string(kind.name) + " needs an agent to act on");
  if (t.behaviour != BehaviourKind::idle && !inside(t.target))
    return failure(CommandError::out_of_bounds,
                   "target " + point_text(t.target) + " is outside the world");
  if (t.neighbours != 4 && t.neighbours != 8)
    return failure(CommandError::out_of_bounds, "neighbours must be 4 or 8");
  if (t.pathing != Pathing::direct && !map_)
    return failure(CommandError::no_map,
                   "pathing other than direct needs a tile map; load one first");
  if (map_ && t.behaviour != BehaviourKind::idle && map_->blocked(map_->tile_at(t.target)))
    return failure(CommandError::unreachable,
                   "target " + point_text(t.target) + " is on a blocked tile");
  if (map_ && !has_walkable_tile(cmd.min, cmd.max))
    return failure(CommandError::out_of_bounds,
                   "source " + rect_text(cmd.min, cmd.max) + " has no walkable tile");
  if (sources_.source_count() >= L::kMaxSources)
    return failure(CommandError::limit_exceeded,
                   "the world holds at most " + std::to_string(L::kMaxSources) + " sources");
  Source s;
  s.min = cmd.min;
  s.max = cmd.max;
  s.rate = cmd.rate;
  s.total = cmd.total;
  s.agent = t;
  s.created_tick = tick_;
  CommandOutcome out;
  out.source = sources_.add_source(s);
  return out;
}

CommandOutcome WorldImpl::apply_remove_source(const RemoveSource& cmd) {
  if (!sources_.remove_source(cmd.id))
    return failure(CommandError::unknown_source,
                   "source " + std::to_string(cmd.id) + " does not exist");
  CommandOutcome out;
  out.affected = 1;
  return out;
}

CommandOutcome WorldImpl::apply_add_exit(const AddExit& cmd) {
  if (CommandOutcome why = check_rect("exit", cmd.min, cmd.max); !why.ok()) return why;
  if (sources_.exit_count() >= SourceLimits::kMaxExits)
    return failure(CommandError::limit_exceeded,
                   "the world holds at most " + std::to_string(SourceLimits::kMaxExits) + " exits");
  CommandOutcome out;
  out.exit = sources_.add_exit(cmd.min, cmd.max, tick_);
  return out;
}

CommandOutcome WorldImpl::apply_remove_exit(const RemoveExit& cmd) {
  if (!sources_.remove_exit(cmd.id))
    return failure(CommandError::unknown_exit,
                   "exit " + std::to_string(cmd.id) + " does not exist");
  CommandOutcome out;
  out.affected = 1;
  return out;
}

bool WorldImpl::has_walkable_tile(Vec2 min, Vec2 max) const {
  const TileCoord a = map_->tile_at(min), b = map_->tile_at(max);
  for (std::int32_t y = a.y; y <= b.y; ++y)
    for (std::int32_t x = a.x; x <= b.x; ++x)
      if (map_->walkable(TileCoord{x, y})) return true;
  return false;
}

Agent WorldImpl::make_agent(const AgentTemplate& t, Vec2 position) {
  SpawnAgent spec;
  spec.position = position;
  spec.group = t.group;
  spec.radius = t.radius;
  spec.max_speed = t.max_speed;
  spec.max_force = t.max_force;
  spec.mass = t.mass;
  spec.movement = t.movement;
  spec.priority = t.priority;
  spec.layer = t.layer;
  spec.mask = t.mask;
  spec.combat = t.combat;
  Agent a = make_agent(spec);
  a.pathing = t.pathing;
  a.neighbours = t.neighbours;
  if (t.behaviour != BehaviourKind::idle) {
    a.behaviour.kind = t.behaviour;
    a.behaviour.point = t.target;
    a.behaviour.phase = traits(t.behaviour).start;
    a.state = MoveState::moving;
  }
  return a;
}

std::optional<Vec2> WorldImpl::place(const Source& s, double radius, const Nearby& near) {
  for (int attempt = 0; attempt < SourceLimits::kPlacementTries; ++attempt) {
    // x then y, each drawn in order from the world's generator: part of the determinism contract.
    const Vec2 p{rng_.uniform(s.min.x, s.max.x), rng_.uniform(s.min.y, s.max.y)};
    if (map_ && map_->blocked(map_->tile_at(p))) continue;
    const auto overlaps = [&](Vec2 at, double r) {
      return length_squared(p - at) < (radius + r) * (radius + r);
    };
    if (std::any_of(near.agents.begin(), near.agents.end(), [&](std::size_t i) {
          return overlaps(agents_[i].position, agents_[i].def.radius);
        }))
      continue;
    if (std::any_of(near.obstacles.begin(), near.obstacles.end(), [&](std::size_t i) {
          return overlaps(obstacles_.items[i].position, obstacles_.items[i].radius);
        }))
      continue;
    return p;
  }
  return std::nullopt;
}

void WorldImpl::stage_sources() {
  if (sources_.source_count() == 0) return;
  const std::uint64_t tick = tick_ + 1;  // the tick this step completes
  const std::size_t before = agents_.size();
  Nearby near;
  for (Source& s : sources_.sources()) {
    const std::uint32_t due = SourceService::due(s, tick, def_.dt);
    if (due <= s.spawned || agents_.size() >= def_.max_agents) continue;
    const double radius = template_def(s.agent).radius;
    // The agents and obstacles a disc placed in the rectangle could touch: one pass, and only
    // for a source with agents due, so a step costs O(agents) per source that spawns and nothing
    // otherwise.
    const auto reaches = [&](Vec2 p, double r) {
      const double reach = radius + r;
      return p.x >= s.min.x - reach && p.x <= s.max.x + reach && p.y >= s.min.y - reach &&
             p.y <= s.max.y + reach;
    };
    near.agents.clear();
    near.obstacles.clear();
    for (std::size_t i = 0; i < agents_.size(); ++i)
      if (reaches(agents_[i].position, agents_[i].def.radius)) near.agents.push_back(i);
    for (std::size_t i = 0; i < obstacles_.items.size(); ++i)
      if (reaches(obstacles_.items[i].position, obstacles_.items[i].radius))
        near.obstacles.push_back(i);
    while (s.spawned < due && agents_.size() < def_.max_agents) {
      const std::optional<Vec2> spot = place(s, radius, near);
      if (!spot) break;  // crowded: the rest wait for the next tick
      agents_.push_back(make_agent(s.agent, *spot));
      near.agents.push_back(agents_.size() - 1);
      ++s.spawned;
    }
  }
  if (agents_.size() == before) return;
  pathing_.agents_added(agents_.size(), map_.has_value());
  neighbours_.rules_stale = true;  // counted again by begin_step, before the grid
  sources_.changed();
}

void WorldImpl::stage_exits() {
  if (sources_.exit_count() == 0) return;
  std::vector<std::size_t> gone;
  const std::span<Exit> exits = sources_.exits();
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const Vec2 p = agents_[i].position;
    for (Exit& e : exits) {
      if (!in_rect(p, e.min, e.max)) continue;
      ++e.removed;
      e.last_removal_tick = tick_ + 1;
      gone.push_back(i);
      break;  // the lowest id of the exits it is in
    }
  }
  if (gone.empty()) return;
  remove_agents(gone);
  sources_.changed();
}

}  // namespace herd::sim
