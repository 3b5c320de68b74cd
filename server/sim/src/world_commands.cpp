// The World's commands: queueing, the dispatch by kind, selections, and each command's checks and
// effect (behaviours, spawning and removal, obstacles, avoidance settings, the tile map).
// Formations and demo moves are the formations' part's (formation_service.cpp), the reachability
// checks in world_pathing.cpp.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include "world_impl.hpp"

namespace herd::sim {
namespace {

bool in_range(double v, double lo, double hi) { return std::isfinite(v) && v >= lo && v <= hi; }

}  // namespace

std::string number_text(double v) {
  // To hundredths: a computed place prints as 464, not 463.99999999999994.
  if (std::isfinite(v) && std::abs(v) < 1e12) v = std::round(v * 100) / 100 + 0.0;  // no "-0"
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string point_text(Vec2 p) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict, bug 105329) on chained operator+.
  std::string out = "(";
  out += number_text(p.x);
  out += ", ";
  out += number_text(p.y);
  out += ')';
  return out;
}

CommandOutcome failure(CommandError error, std::string message) {
  CommandOutcome out;
  out.error = error;
  out.message = std::move(message);
  return out;
}

CommandOutcome WorldImpl::apply(const Command& command, CommandOrigin origin) {
  CommandOutcome out = dispatch(command);
  out.origin = origin;
  out.tick = tick_ + 1;  // the tick whose step follows (herd/sim/world.hpp)
  return out;
}

CommandOutcome WorldImpl::dispatch(const Command& command) {
  steering_.note_command();  // it may change a steered agent
  return std::visit(
      [this](const auto& c) -> CommandOutcome {
        using T = std::decay_t<decltype(c)>;
        if constexpr (std::is_same_v<T, SetTarget>)
          return apply_set_target(c);
        else if constexpr (std::is_same_v<T, Spawn>)
          return apply_spawn(c);
        else if constexpr (std::is_same_v<T, SetBehaviour>)
          return apply_set_behaviour(c);
        else if constexpr (std::is_same_v<T, SetMovement>)
          return apply_set_movement(c);
        else if constexpr (std::is_same_v<T, AddObstacle>)
          return apply_add_obstacle(c);
        else if constexpr (std::is_same_v<T, RemoveObstacle>)
          return apply_remove_obstacle(c);
        else if constexpr (std::is_same_v<T, SetAvoidance>)
          return apply_set_avoidance(c);
        else if constexpr (std::is_same_v<T, LoadMap>)
          return apply_load_map(c);
        else if constexpr (std::is_same_v<T, ClearMap>)
          return apply_clear_map();
        else if constexpr (std::is_same_v<T, SetTiles>)
          return apply_set_tiles(c);
        else if constexpr (std::is_same_v<T, SetPathing>)
          return apply_set_pathing(c);
        else if constexpr (std::is_same_v<T, SetGroup>)
          return apply_set_group(c);
        else if constexpr (std::is_same_v<T, Form>)
          return apply_form(c);
        else if constexpr (std::is_same_v<T, Demo>)
          return apply_demo(c);
        else if constexpr (std::is_same_v<T, Remove>)
          return apply_remove(c);
        else if constexpr (std::is_same_v<T, AddMeasurement>)
          return apply_add_measurement(c);
        else if constexpr (std::is_same_v<T, RemoveMeasurement>)
          return apply_remove_measurement(c);
        else if constexpr (std::is_same_v<T, AddSource>)
          return apply_add_source(c);
        else if constexpr (std::is_same_v<T, RemoveSource>)
          return apply_remove_source(c);
        else if constexpr (std::is_same_v<T, AddExit>)
          return apply_add_exit(c);
        else if constexpr (std::is_same_v<T, RemoveExit>)
          return apply_remove_exit(c);
        else if constexpr (std::is_same_v<T, AddWall>)
          return apply_add_wall(c);
        else if constexpr (std::is_same_v<T, RemoveWall>)
          return apply_remove_wall(c);
        else
          return apply_stop(c);
      },
      command);
}

// Resolves a selection into agent indices, or fails naming the first unknown id. Duplicated ids
// count once.
bool WorldImpl::select(const Selection& sel, std::vector<std::size_t>& indices,
                       CommandOutcome& out) const {
  indices.clear();
  if (sel.all) {
    for (std::size_t i = 0; i < agents_.size(); ++i) indices.push_back(i);
    return true;
  }
  if (sel.group || sel.rect || sel.team) {
    for (std::size_t i = 0; i < agents_.size(); ++i) {
      const Agent& a = agents_[i];
      if (sel.team && a.team != *sel.team) continue;
      const bool in_group = !sel.group || a.group == *sel.group;
      const bool in_rect =
          !sel.rect || (a.position.x >= sel.rect->min.x && a.position.x <= sel.rect->max.x &&
                        a.position.y >= sel.rect->min.y && a.position.y <= sel.rect->max.y);
      if (in_group && in_rect) indices.push_back(i);
    }
    if (indices.empty()) {
      std::string which = sel.team ? "no agent of team " + std::to_string(*sel.team) : "no agent";
      if (sel.group) which += " is in group " + std::to_string(*sel.group);
      if (sel.rect) which += sel.group ? " inside the rectangle" : " is inside the rectangle";
      if (!sel.group && !sel.rect) which += " exists";
      out = failure(CommandError::bad_selection, which);
      return false;
    }
    return true;
  }
  for (AgentId id : sel.ids) {
    const std::size_t i = index_of(id);
    if (i == agents_.size()) {
      out = failure(CommandError::unknown_agent, "agent " + std::to_string(id) + " does not exist");
      return false;
    }
    indices.push_back(i);
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return true;
}

CommandOutcome WorldImpl::apply_set_behaviour(const SetBehaviour& cmd) {
  CommandOutcome out;
  Behaviour b = cmd.behaviour;
  if (cmd.target_tile) {
    if (!map_) return failure(CommandError::no_map, "target_tile needs a tile map; load one first");
    if (!map_->in_bounds(*cmd.target_tile))
      return failure(CommandError::out_of_bounds, "tile (" + std::to_string(cmd.target_tile->x) +
                                                      ", " + std::to_string(cmd.target_tile->y) +
                                                      ") is off the map");
    b.point = map_->tile_centre(*cmd.target_tile);
  }
  const BehaviourTraits& kind = traits(b.kind);
  const bool uses_point = b.agent == kNoAgent && kind.takes_point &&
                          !(b.kind == BehaviourKind::hold && cmd.hold_here) &&
                          !(b.kind == BehaviourKind::flock && !cmd.params.has_target);
  if (uses_point && !inside(b.point))
    return failure(CommandError::out_of_bounds,
                   "target " + point_text(b.point) + " is outside the world");
  if (kind.needs_agent && b.agent == kNoAgent)
    return failure(CommandError::invalid_target, "this behaviour needs an agent to act on");
  if (b.agent != kNoAgent && !find(b.agent))
    return failure(CommandError::unknown_agent,
                   "agent " + std::to_string(b.agent) + " does not exist");
  if (b.kind == BehaviourKind::follow_path) {
    const std::vector<Vec2>& path = cmd.params.path;
    if (path.size() < 2 || path.size() > BehaviourLimits::kMaxPathPoints)
      return failure(
          CommandError::invalid_target,
          "a path needs 2 to " + std::to_string(BehaviourLimits::kMaxPathPoints) + " points");
    for (Vec2 p : path)
      if (!inside(p))
        return failure(CommandError::out_of_bounds,
                       "path point " + point_text(p) + " is outside the world");
  }
  std::vector<std::size_t> indices;
  if (!select(cmd.agents, indices, out)) return out;
  for (std::size_t i : indices)
    if (b.agent != kNoAgent && agents_[i].id == b.agent)
      return failure(CommandError::invalid_target,
                     "agent " + std::to_string(b.agent) + " cannot act on itself");
  if (uses_point) {
    if (CommandOutcome why = check_reachable(b.point, indices); !why.ok()) return why;
  }
  orders_.forget(agents_, indices);
  for (std::size_t i : indices) {
    Agent& a = agents_[i];
    a.order = 0;
    a.behaviour = b;
    a.behaviour.home = a.position;
    if (b.kind == BehaviourKind::hold && cmd.hold_here) a.behaviour.point = a.position;
    a.behaviour.phase = kind.start;
    a.state = b.kind == BehaviourKind::idle ? MoveState::idle : MoveState::moving;
  }
  steering_.start(cmd, agents_, indices, rng_);
  out.affected = static_cast<std::uint32_t>(indices.size());
  return out;
}

CommandOutcome WorldImpl::apply_set_movement(const SetMovement& cmd) {
  return for_each_selected(cmd.agents, [&](Agent& a, std::size_t) { a.movement = cmd.movement; });
}

Agent WorldImpl::make_agent(const SpawnAgent& spec) {
  Agent a;
  a.id = next_id_++;
  a.group = spec.group;
  a.movement = spec.movement;
  a.def = def_.agent_defaults;
  if (spec.radius) a.def.radius = *spec.radius;
  if (spec.max_speed) a.def.max_speed = *spec.max_speed;
  if (spec.max_force) a.def.max_force = *spec.max_force;
  if (spec.mass) a.def.mass = *spec.mass;
  if (spec.priority) a.def.priority = *spec.priority;
  if (spec.layer) a.def.layer = *spec.layer;
  if (spec.mask) a.def.mask = *spec.mask;
  if (spec.sight) a.def.sight = static_cast<float>(*spec.sight);
  spec.combat.apply(a.def, a.hp);
  a.team = spec.team;
  a.position = spec.position;
  if (spec.target) {
    a.behaviour.kind = BehaviourKind::arrive;
    a.behaviour.point = *spec.target;
    a.state = MoveState::moving;
  }
  a.behaviour.home = a.position;
  return a;
}

CommandOutcome WorldImpl::apply_spawn(const Spawn& cmd) {
  const std::size_t n = cmd.count > 0 ? cmd.count : cmd.agents.size();
  if (agents_.size() + n > def_.max_agents)
    return failure(CommandError::limit_exceeded, "spawning " + std::to_string(n) +
                                                     " agents would exceed the world's limit of " +
                                                     std::to_string(def_.max_agents));
  {  // the area their discs cover, against the world's
    constexpr double kPi = 3.14159265358979323846;
    const auto disc = [](double r) { return kPi * r * r; };
    double covered = 0, added = 0;
    for (const Agent& a : agents_) covered += disc(a.def.radius);
    const double default_disc = disc(def_.agent_defaults.radius);
    if (cmd.count > 0) added = cmd.count * default_disc;
    for (const SpawnAgent& s : cmd.agents)
      added += disc(s.radius ? *s.radius : def_.agent_defaults.radius);
    const double room = WorldDefLimits::kMaxAreaFill * def_.width * def_.height;
    if (covered + added > room) {
      // A team's spawn (a player's, on a server with players) is not told how full the world is:
      // that counts agents the player may not see.
      if (cmd.team && *cmd.team != 0)
        return failure(CommandError::limit_exceeded,
                       "spawning " + std::to_string(n) +
                           " agents would cover more than half the world's area with agents");
      const auto more = static_cast<std::uint64_t>(std::max(0.0, room - covered) / default_disc);
      return failure(CommandError::limit_exceeded,
                     "spawning " + std::to_string(n) +
                         " agents would cover more than half the world's area with agents (" +
                         std::to_string(static_cast<std::uint64_t>(std::min(
                             1e12, 100 * (covered + added) / (def_.width * def_.height)))) +
                         "%); it has room for about " + std::to_string(more) +
                         " more of the default radius");
    }
  }
  for (const SpawnAgent& s : cmd.agents) {
    const bool target_ok = !s.target || inside(*s.target);
    if (!inside(s.position) || !target_ok)
      return failure(CommandError::out_of_bounds,
                     "spawn position or target " + point_text(target_ok ? s.position : *s.target) +
                         " is outside the world");
    if (map_ && map_->blocked(map_->tile_at(s.position)))
      return failure(CommandError::out_of_bounds,
                     "spawn position " + point_text(s.position) + " is inside a wall");
    if (map_ && s.target && map_->blocked(map_->tile_at(*s.target)))
      return failure(CommandError::unreachable,
                     "spawn target " + point_text(*s.target) + " is on a blocked tile");
    // Overrides must still make a valid AgentDef.
    AgentDef d = def_.agent_defaults;
    if (s.radius) d.radius = *s.radius;
    if (s.max_speed) d.max_speed = *s.max_speed;
    if (s.max_force) d.max_force = *s.max_force;
    if (s.mass) d.mass = *s.mass;
    if (s.priority) d.priority = *s.priority;
    if (s.sight) d.sight = static_cast<float>(std::clamp(*s.sight, -1.0, 1e6));
    if (std::string why = validate(s.combat, d); !why.empty())
      return failure(CommandError::out_of_bounds, why);
    if (std::string why = validate(d); !why.empty())
      return failure(CommandError::out_of_bounds, why);
    if (s.team > AgentDefLimits::kMaxTeam)
      return failure(CommandError::out_of_bounds, "agent team must be in [0, 63]");
  }
  if (cmd.priority && *cmd.priority > AgentDefLimits::kMaxPriority)
    return failure(CommandError::out_of_bounds, "agent priority must be in [0, 99]");
  if (cmd.sight &&
      !(std::isfinite(*cmd.sight) && *cmd.sight >= 0 && *cmd.sight <= AgentDefLimits::kMaxSight))
    return failure(CommandError::out_of_bounds, "agent sight must be in [0, 100000]");
  if (cmd.team && *cmd.team > AgentDefLimits::kMaxTeam)
    return failure(CommandError::out_of_bounds, "agent team must be in [0, 63]");
  if (cmd.count > 0) {
    AgentDef d = def_.agent_defaults;
    if (std::string why = validate(cmd.combat, d); !why.empty())
      return failure(CommandError::out_of_bounds, why);
  }
  CommandOutcome out;
  out.spawned.reserve(n);
  // Grow by a sixteenth at least rather than doubling: a big crowd spawned a thousand at a time
  // ends within about 6% of its size instead of up to twice it (memory per agent), for a few
  // more moves of the array.
  if (agents_.capacity() < agents_.size() + n)
    agents_.reserve(std::max(agents_.size() + n, agents_.size() + agents_.size() / 16));
  if (cmd.count > 0) {
    const double r = def_.agent_defaults.radius;
    for (std::uint32_t i = 0; i < cmd.count; ++i) {
      SpawnAgent s;
      s.group = cmd.group;
      s.priority = cmd.priority;
      s.layer = cmd.layer;
      s.mask = cmd.mask;
      s.sight = cmd.sight;
      s.combat = cmd.combat;
      s.team = cmd.team.value_or(0);
      // x then y, each drawn in order from the world's generator: part of the determinism contract.
      // With a map, drawn again (at most 64 times) until the point is on a walkable tile.
      for (int attempt = 0; attempt < 64; ++attempt) {
        s.position.x =
            rng_.uniform(std::min(r, def_.width / 2), std::max(def_.width - r, def_.width / 2));
        s.position.y =
            rng_.uniform(std::min(r, def_.height / 2), std::max(def_.height - r, def_.height / 2));
        if (!map_ || map_->walkable(map_->tile_at(s.position))) break;
      }
      agents_.push_back(make_agent(s));
      out.spawned.push_back(agents_.back().id);
    }
  } else {
    for (const SpawnAgent& s : cmd.agents) {
      agents_.push_back(make_agent(s));
      if (cmd.team) agents_.back().team = *cmd.team;
      if (cmd.sight && !s.sight) agents_.back().def.sight = static_cast<float>(*cmd.sight);
      out.spawned.push_back(agents_.back().id);
    }
  }
  pathing_.agents_added(agents_.size(), map_.has_value());
  neighbours_.rules_stale = true;
  return out;
}

CommandOutcome WorldImpl::apply_add_obstacle(const AddObstacle& cmd) {
  if (!inside(cmd.position))
    return failure(CommandError::out_of_bounds,
                   "obstacle " + point_text(cmd.position) + " is outside the world");
  if (!in_range(cmd.radius, ObstacleLimits::kMinRadius, ObstacleLimits::kMaxRadius))
    return failure(CommandError::out_of_bounds, "obstacle radius must be in [" +
                                                    number_text(ObstacleLimits::kMinRadius) + ", " +
                                                    number_text(ObstacleLimits::kMaxRadius) + "]");
  if (obstacles_.items.size() >= def_.max_obstacles)
    return failure(CommandError::limit_exceeded,
                   "the world holds at most " + std::to_string(def_.max_obstacles) + " obstacles");
  obstacles_.items.push_back({obstacles_.next_id++, cmd.position, cmd.radius});
  ++obstacles_.version;
  CommandOutcome out;
  out.obstacle = obstacles_.items.back().id;
  return out;
}

CommandOutcome WorldImpl::apply_add_measurement(const AddMeasurement& cmd) {
  const bool line = cmd.kind == MeasurementKind::line;
  const char* what = line ? "measurement line" : "measurement area";
  if (!inside(cmd.a) || !inside(cmd.b))
    return failure(CommandError::out_of_bounds, std::string(what) + " " + point_text(cmd.a) +
                                                    " to " + point_text(cmd.b) +
                                                    " is not inside the world");
  if (line ? cmd.a == cmd.b : !(cmd.a.x < cmd.b.x && cmd.a.y < cmd.b.y))
    return failure(CommandError::out_of_bounds,
                   line ? "a measurement line needs two different points"
                        : "a measurement area needs a positive width and height");
  if (measurements_.size() >= kMaxMeasurements)
    return failure(CommandError::limit_exceeded,
                   "the world holds at most " + std::to_string(kMaxMeasurements) + " measurements");
  CommandOutcome out;
  out.measurement = measurements_.add(cmd.kind, cmd.a, cmd.b, tick_, agents_);
  return out;
}

CommandOutcome WorldImpl::apply_remove_measurement(const RemoveMeasurement& cmd) {
  if (!measurements_.remove(cmd.id))
    return failure(CommandError::unknown_measurement,
                   "measurement " + std::to_string(cmd.id) + " does not exist");
  CommandOutcome out;
  out.affected = 1;
  return out;
}

CommandOutcome WorldImpl::apply_remove_obstacle(const RemoveObstacle& cmd) {
  auto it = std::find_if(obstacles_.items.begin(), obstacles_.items.end(),
                         [&](const Obstacle& o) { return o.id == cmd.id; });
  if (it == obstacles_.items.end())
    return failure(CommandError::unknown_obstacle,
                   "obstacle " + std::to_string(cmd.id) + " does not exist");
  obstacles_.items.erase(it);
  ++obstacles_.version;
  CommandOutcome out;
  out.affected = 1;
  return out;
}

CommandOutcome WorldImpl::apply_set_avoidance(const SetAvoidance& cmd) {
  AvoidanceDef next = def_.avoidance;
  if (cmd.mode) next.mode = *cmd.mode;
  if (cmd.personal_space) next.personal_space = *cmd.personal_space;
  if (cmd.cardioid_exponent) next.cardioid_exponent = *cmd.cardioid_exponent;
  if (cmd.preferred_side) next.preferred_side = *cmd.preferred_side;
  if (cmd.split_fix) next.split_fix = *cmd.split_fix;
  if (cmd.push_epsilon) next.push_epsilon = *cmd.push_epsilon;
  if (cmd.crossing) next.crossing = *cmd.crossing;
  if (cmd.crossing_activation) next.crossing_activation = *cmd.crossing_activation;
  if (cmd.lookahead) next.lookahead = *cmd.lookahead;
  if (cmd.max_neighbours) next.max_neighbours = *cmd.max_neighbours;
  if (cmd.time_gap) next.time_gap = *cmd.time_gap;
  if (cmd.repulsion_strength) next.repulsion_strength = *cmd.repulsion_strength;
  if (cmd.repulsion_range) next.repulsion_range = *cmd.repulsion_range;
  if (cmd.wall_repulsion_strength) next.wall_repulsion_strength = *cmd.wall_repulsion_strength;
  if (cmd.wall_repulsion_range) next.wall_repulsion_range = *cmd.wall_repulsion_range;
  if (std::string why = validate(next); !why.empty())
    return failure(CommandError::out_of_bounds, why);
  def_.avoidance = next;
  return {};
}

CommandOutcome WorldImpl::apply_set_group(const SetGroup& cmd) {
  return for_each_selected(cmd.agents, [&](Agent& a, std::size_t) { a.group = cmd.group; });
}

CommandOutcome WorldImpl::apply_form(const Form& cmd) {
  CommandOutcome out;
  std::vector<std::size_t> indices;
  if (!select(cmd.agents, indices, out)) return out;
  CommandOutcome done = formations_.form(formation_scene(), indices, cmd.def, rng_);
  if (done.ok()) orders_.forget(agents_, indices);
  return done;
}

CommandOutcome WorldImpl::apply_demo(const Demo& cmd) {
  CommandOutcome out;
  std::vector<std::size_t> indices;
  if (!select(cmd.agents, indices, out)) return out;
  CommandOutcome done = formations_.demo(formation_scene(), indices, cmd, rng_);
  if (done.ok()) orders_.forget(agents_, indices);
  return done;
}

CommandOutcome WorldImpl::apply_remove(const Remove& cmd) {
  CommandOutcome out;
  std::vector<std::size_t> indices;
  if (!select(cmd.agents, indices, out)) return out;
  remove_agents(indices);
  out.affected = static_cast<std::uint32_t>(indices.size());
  return out;
}

void WorldImpl::remove_agents(const std::vector<std::size_t>& indices) {
  // Every array parallel to agents_ loses the same entries, keeping the id order.
  orders_.forget(agents_, indices);
  steering_.forget(agents_, indices);
  std::vector<char> gone(agents_.size(), 0);
  for (std::size_t i : indices) gone[i] = 1;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    if (gone[i]) continue;
    agents_[kept] = std::move(agents_[i]);
    pathing_.keep(i, kept);
    stalls_.keep(i, kept);
    if (i < desires_.size()) desires_[kept] = desires_[i];
    if (i < contacts_.hit_subject.size()) contacts_.hit_subject[kept] = contacts_.hit_subject[i];
    ++kept;
  }
  agents_.resize(kept);
  pathing_.truncate(kept);
  stalls_.truncate(kept);
  desires_.resize(std::min(desires_.size(), kept));
  contacts_.hit_subject.resize(std::min(contacts_.hit_subject.size(), kept));
  neighbours_.rules_stale = true;
}

CommandOutcome WorldImpl::apply_load_map(const LoadMap& cmd) {
  if (std::string why = validate(cmd.map); !why.empty()) return failure(CommandError::bad_map, why);
  const double w = cmd.map.width * cmd.map.tile_size, h = cmd.map.height * cmd.map.tile_size;
  if (w > def_.width + 1e-9 || h > def_.height + 1e-9)
    return failure(CommandError::bad_map, "the map is " + number_text(w) + " x " + number_text(h) +
                                              " units; the world is only " +
                                              number_text(def_.width) + " x " +
                                              number_text(def_.height));
  map_.emplace(cmd.map);
  pathing_.map_loaded(agents_.size());  // pathing state exists while there is a map to plan on
  ++map_version_;
  return {};
}

CommandOutcome WorldImpl::apply_clear_map() {
  if (!map_) return failure(CommandError::no_map, "there is no map to clear");
  map_.reset();
  pathing_.map_cleared();
  ++map_version_;
  return {};
}

CommandOutcome WorldImpl::apply_set_tiles(const SetTiles& cmd) {
  if (!map_) return failure(CommandError::no_map, "set_tiles needs a tile map; load one first");
  for (const TileChange& c : cmd.tiles)
    if (!map_->in_bounds(c.tile))
      return failure(CommandError::out_of_bounds, "tile (" + std::to_string(c.tile.x) + ", " +
                                                      std::to_string(c.tile.y) +
                                                      ") is off the map");
  CommandOutcome out;
  for (const TileChange& c : cmd.tiles) {
    if (map_->blocked(c.tile) != c.blocked) ++out.affected;
    map_->set_blocked(c.tile, c.blocked);
  }
  if (out.affected) ++map_version_;
  return out;
}

CommandOutcome WorldImpl::apply_set_pathing(const SetPathing& cmd) {
  if (cmd.pathing != Pathing::direct && !map_)
    return failure(CommandError::no_map,
                   "pathing other than direct needs a tile map; load one first");
  return for_each_selected(cmd.agents, [&](Agent& a, std::size_t i) {
    a.pathing = cmd.pathing;
    a.neighbours = cmd.neighbours == 4 ? 4 : 8;
    pathing_.replan(i);
  });
}

}  // namespace herd::sim
