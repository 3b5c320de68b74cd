#include "publish/world_messages.hpp"

#include <algorithm>
#include <charconv>
#include <span>
#include <utility>

#include "protocol/snapshot_json.hpp"
#include "publish/snapshot_plan.hpp"
#include "publish/snapshot_tail.hpp"

namespace herd::publish {

using namespace protocol;

namespace {

// The trace of agent a; `shown(id)` says whether another agent's push is part of it.
template <class Shown>
InspectState inspect_state(const sim::Agent& a, const sim::AvoidanceTrace& t, Shown&& shown) {
  InspectState s{a.id,
                 t.desired_dir,
                 t.sum_raw,
                 t.sum_adjusted,
                 t.split_fix,
                 t.final_dir,
                 a.velocity,
                 t.desired_path_to,
                 t.current_path_to,
                 t.ig_factor,
                 {},
                 {},
                 0,
                 {}};
  for (const sim::PushTrace& p : t.pushes)
    if (p.is_obstacle || shown(p.id))
      s.pushes.push_back({p.id, p.is_obstacle, p.raw, p.adjusted, p.weight, p.ignored, p.crossing,
                          p.yielded, p.crossing_point, p.t_self, p.t_other, p.crossing_scale,
                          p.path_to});
  return s;
}

// The trace with its agent's stall, as the agent's object carries it (already filtered for
// the view it was written for).
InspectState with_stall(InspectState s, const AgentState& agent) {
  s.stall = agent.stall;
  s.stall_for = agent.stall_for;
  s.stall_by = agent.stall_by;
  return s;
}

}  // namespace

std::optional<MapState> map_state(const sim::World& world) {
  const sim::TileMap* map = world.map();
  if (!map) return std::nullopt;
  MapState m{map->width(), map->height(), map->tile_size(), {}};
  m.rows.reserve(static_cast<std::size_t>(map->height()));
  for (std::int32_t y = 0; y < map->height(); ++y) {
    std::string row(static_cast<std::size_t>(map->width()), '.');
    for (std::int32_t x = 0; x < map->width(); ++x)
      if (map->blocked(x, y)) row[static_cast<std::size_t>(x)] = '#';
    m.rows.push_back(std::move(row));
  }
  return m;
}

namespace {

// A float setting as the number it was given: the shortest decimal that reads back as the float
// (200, 150.3), not the float's exact binary value (150.300003...).
double float_value(float f) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, f);
  double d = 0;
  std::from_chars(buf, res.ptr, d);
  return d;
}

// Whether a team's view is shown agent `a` (index `i`) under `fog`; the whole world's is shown
// every one.
bool shows(const View& view, Fog fog, const sim::Agent& a, std::size_t i) {
  if (view.team == 0) return true;
  switch (fog) {
    case Fog::left_out:
      return false;
    case Fog::whole:
      return true;
    case Fog::sight:
      return ((*view.seen)[i] >> view.team & 1) != 0;
    case Fog::ownership:
      return a.team == view.team;
  }
  return false;
}

// Whether the view is shown what concerns agents `ids` under `fog`: every one shown (shows). An
// agent no longer in the world is one a team does not see, and owns no less for being gone.
bool shows(const sim::World& world, const View& view, Fog fog, std::span<const sim::AgentId> ids) {
  if (view.team == 0) return true;
  const auto agents = world.agents();
  return std::all_of(ids.begin(), ids.end(), [&](sim::AgentId id) {
    const sim::Agent* a = world.find(id);
    if (!a) return fog == Fog::ownership;
    return shows(view, fog, *a, static_cast<std::size_t>(a - agents.data()));
  });
}

// Whether any agent carries a weapon or is hurt: then snapshots tell every agent's hit points.
bool health_told(std::span<const sim::Agent> agents) {
  return std::any_of(agents.begin(), agents.end(), [](const sim::Agent& a) {
    return a.def.weapon.armed() || a.hp < a.def.max_hp;
  });
}

// The world's per-agent arrays a snapshot's agent objects are written from, and whether their hit
// points are told.
struct AgentArrays {
  std::span<const sim::Agent> agents;
  decltype(std::declval<const sim::World&>().desires()) desires;
  bool health = false;
};
AgentArrays agent_arrays(const sim::World& world) {
  return {world.agents(), world.desires(), health_told(world.agents())};
}

// Agent i of the world as the JSON snapshot carries it.
AgentState agent_state(const sim::World& world, const AgentArrays& arrays, std::size_t i,
                       const View& view = {}) {
  const sim::Agent& a = arrays.agents[i];
  const auto& desires = arrays.desires;
  // Every field by name: a field added to AgentState is one line here, wherever it sits.
  AgentState s;
  s.id = a.id;
  s.x = a.position.x;
  s.y = a.position.y;
  s.vx = a.velocity.x;
  s.vy = a.velocity.y;
  s.r = a.def.radius;
  s.group = a.group;
  s.state = a.state;
  if (i < desires.size()) s.target = desires[i].goal;
  s.behaviour = a.behaviour.kind;
  s.phase = a.behaviour.phase;
  s.collided = a.collided;
  s.kinematic = a.movement == sim::Movement::kinematic;
  s.pathing = a.pathing;
  const sim::PathView path = world.path(i);
  if (a.pathing == sim::Pathing::no_backtrack)
    s.history.assign(path.trail.begin(), path.trail.end());
  s.path_pending = path.pending;
  if (a.behaviour.agent != sim::kNoAgent) s.subject = a.behaviour.agent;
  s.priority = a.def.priority;
  s.layer = a.def.layer;
  s.mask = a.def.mask;
  if (world.has_orders()) {
    s.waypoints = world.upcoming(a.id);
    if (s.waypoints.size() > protocol::kMaxWaypointsPerAgent)
      s.waypoints.resize(protocol::kMaxWaypointsPerAgent);
  }
  if (a.team != 0 || view.teams) s.team = a.team;
  if (a.def.sight != world.def().agent_defaults.sight) s.sight = float_value(a.def.sight);
  if (arrays.health) {
    s.hp = float_value(a.hp);
    s.max_hp = float_value(a.def.max_hp);
  }
  if (i < world.stalls().size() && world.stalls()[i].stalled()) {
    // Why it is stalled, and the agents responsible that are still in the world and that the
    // view is shown (a player learns no id of an agent it does not see).
    const sim::Stall& st = world.stalls()[i];
    s.stall = st.reason;
    s.stall_for = st.seconds(world.def().dt);
    const Fog fog = SnapshotPlan::row(&SnapshotParts::agents).to.teams;
    for (std::size_t k = 0; k < st.by_count; ++k) {
      const sim::AgentId by[] = {st.by[k]};
      if (world.find(by[0]) && shows(world, view, fog, by)) s.stall_by.push_back(by[0]);
    }
  }
  if (view.team != 0 && a.team != view.team) {  // another team's: where it is, not its orders
    s.orders_hidden = true;                     // (no behaviour, phase, target or subject)
    s.behaviour = sim::BehaviourKind::idle;
    s.phase = sim::Phase::none;
    s.stall = sim::StallReason::none;  // nor why it is stuck
    s.stall_for = 0;
    s.stall_by.clear();
    s.target.reset();
    s.waypoints.clear();
    s.subject.reset();
    s.history.clear();
    s.path_pending = false;
  } else if (view.team != 0 && s.subject) {  // its own, acting on an agent out of sight
    const sim::AgentId subject[] = {*s.subject};
    const Fog fog = SnapshotPlan::row(&SnapshotParts::agents).to.teams;
    if (!shows(world, view, fog, subject)) s.subject.reset();
  }
  return s;
}

// The audience a view is written for: the whole world's (viewers, and the delayed spectators,
// who are sent the same text later) or a team's.
Audience audience(const View& view) { return view.team == 0 ? Audience::viewers : Audience::team; }

// The tail of a snapshot for `view`: each row's member that the snapshot carries to the view's
// audience, written with the row's fog.
SnapshotTail snapshot_tail(const sim::World& world, std::span<const sim::CollisionEvent> collisions,
                           const SnapshotParts& parts, const View& view = {},
                           std::span<const sim::GameEvent> events = {},
                           const TeamMemory* memory = nullptr, bool explored = false) {
  SnapshotTail t;
  const TailSource source{world, collisions, view, events, memory, explored};
  for (const SnapshotPlan::Row& row : SnapshotPlan::rows())
    if (row.tail && SnapshotPlan::carries(parts, row.part, audience(view)))
      row.tail(source, row.to.teams, t);
  return t;
}

TeamMemoryState memory_of(const SnapshotTail& t) {
  return {t.ghosts ? &*t.ghosts : nullptr, t.explored ? &*t.explored : nullptr};
}

void write_tail(JsonWriter& w, const SnapshotTail& t) {
  const TeamMemoryState memory = memory_of(t);
  write_snapshot_tail(w, t.obstacles ? &*t.obstacles : nullptr, t.hits, t.formations, t.map,
                      t.map_cleared, t.measurements ? &*t.measurements : nullptr,
                      t.sources ? &*t.sources : nullptr, t.exits ? &*t.exits : nullptr,
                      t.walls ? &*t.walls : nullptr, &t.events, nullptr, &memory);
}

}  // namespace

std::vector<ObstacleState> obstacle_states(const sim::World& world) {
  std::vector<ObstacleState> out;
  out.reserve(world.obstacles().size());
  for (const sim::Obstacle& o : world.obstacles())
    out.push_back({o.id, o.position.x, o.position.y, o.radius});
  return out;
}

std::vector<WallState> wall_states(const sim::World& world) {
  std::vector<WallState> out;
  out.reserve(world.walls().size());
  for (const sim::Wall& w : world.walls()) out.push_back({w.id, w.points, w.closed});
  return out;
}

// ---- the rows' tail writers (snapshot_tail.hpp) ------------------------------------------------
// The map, obstacles, walls, measurements, sources and exits go whole to every view that takes
// them; collisions and formations are filtered by the row's fog.

void tail_map(const TailSource& source, Fog, SnapshotTail& tail) {
  tail.map = map_state(source.world);
  tail.map_cleared = !tail.map;
}

void tail_obstacles(const TailSource& source, Fog, SnapshotTail& tail) {
  tail.obstacles = obstacle_states(source.world);
}

void tail_walls(const TailSource& source, Fog, SnapshotTail& tail) {
  tail.walls = wall_states(source.world);
}

void tail_measurements(const TailSource& source, Fog, SnapshotTail& tail) {
  tail.measurements = measurement_states(source.world);
}

void tail_sources(const TailSource& source, Fog, SnapshotTail& tail) {
  tail.sources = source_states(source.world);
  tail.exits = exit_states(source.world);
}

// At most kMaxCollisionsPerSnapshot, of those the view is shown.
void tail_collisions(const TailSource& source, Fog fog, SnapshotTail& tail) {
  for (const sim::CollisionEvent& e : source.collisions) {
    if (tail.hits.size() == kMaxCollisionsPerSnapshot) break;
    const sim::AgentId ids[] = {e.a, e.b};
    if (!shows(source.world, source.view, fog, std::span(ids, e.with_obstacle ? 1 : 2))) continue;
    tail.hits.push_back({e.a, e.b, e.with_obstacle, e.point.x, e.point.y, e.impulse});
  }
}

// The one reader of the world's formations.
void tail_formations(const TailSource& source, Fog fog, SnapshotTail& tail) {
  for (const sim::FormationView& f : source.world.formations()) {
    if (!shows(source.world, source.view, fog, f.agents)) continue;
    FormationState st{f.id, f.members, f.arrived, f.complete, {}};
    for (const sim::UnreachablePlace& u : f.unreachable) {
      UnreachableState us{u.agent, u.place.x, u.place.y, u.by_path, std::nullopt, std::nullopt};
      if (u.moved_to) {
        us.to_x = u.moved_to->x;
        us.to_y = u.moved_to->y;
      }
      st.unreachable.push_back(us);
    }
    tail.formations.push_back(std::move(st));
  }
}

// Hits and deaths each to the views whose team saw them (sim::GameEvent::seen); the hitter named
// to a team's view only when it is the team's own or one the view is shown now (a player learns
// no id of an agent it does not see; one gone since cannot be shown).
void tail_events(const TailSource& source, Fog fog, SnapshotTail& tail) {
  const View& view = source.view;
  for (const sim::GameEvent& e : source.events) {
    if (view.team != 0 && (e.seen >> view.team & 1) == 0) continue;
    EventState st{e.kind,           e.tick, e.agent, e.by, e.at.x, e.at.y, float_value(e.damage),
                  float_value(e.hp)};
    const sim::AgentId by[] = {e.by};
    if (e.kind == sim::EventKind::order_done ||
        (view.team != 0 && e.by_team != view.team && !shows(source.world, view, fog, by)))
      st.by.reset();
    tail.events.push_back(st);
  }
  // A team's view: the enemies its team saw for the first time at this snapshot.
  if (view.team != 0 && source.memory)
    for (const TeamMemory::Ghost& g : source.memory->sighted(view.team))
      tail.events.push_back(
          {sim::EventKind::seen, source.world.tick(), g.id, std::nullopt, g.at.x, g.at.y, 0, 0});
}

// A team's view: its ghosts (every snapshot, [] for none), and its explored ground when the
// source says it is due.
void tail_memory(const TailSource& source, Fog, SnapshotTail& tail) {
  if (source.view.team == 0 || !source.memory) return;
  auto& ghosts = tail.ghosts.emplace();
  for (const TeamMemory::Ghost& g : source.memory->ghosts(source.view.team))
    ghosts.push_back({g.id, g.at.x, g.at.y, g.r, g.group, g.team, g.time});
  if (!source.explored) return;
  const TeamMemory::Explored& e = source.memory->explored(source.view.team);
  if (e.bits.empty()) return;
  ExploredState st{e.cell, e.cols, e.rows, {}};
  st.bits.assign((e.bits.size() + 7) / 8, 0);
  for (std::size_t k = 0; k < e.bits.size(); ++k)
    if (e.bits[k] == 1) st.bits[k / 8] = static_cast<std::uint8_t>(st.bits[k / 8] | 1U << (k % 8));
  tail.explored = std::move(st);
}

SideOpen encode_side_open(const sim::World& world, std::span<const sim::CollisionEvent> collisions,
                          const SnapshotParts& parts, const View& view,
                          std::span<const sim::GameEvent> events, const TeamMemory* memory,
                          bool explored) {
  const SnapshotTail t = snapshot_tail(world, collisions, parts, view, events, memory, explored);
  const TeamMemoryState remembered = memory_of(t);
  // Binary frames carry no hit points: the hurt agents' go here, of those the view is shown.
  std::optional<std::vector<HealthState>> health;
  const auto agents = world.agents();
  if (parts.agents && health_told(agents)) {
    health.emplace();
    const Fog fog = SnapshotPlan::row(&SnapshotParts::agents).to.teams;
    for (std::size_t i = 0; i < agents.size(); ++i)
      if (agents[i].hp < agents[i].def.max_hp && shows(view, fog, agents[i], i))
        health->push_back(
            {agents[i].id, float_value(agents[i].hp), float_value(agents[i].def.max_hp)});
  }
  return open_side_section(world.tick(), world.time(), world.def().avoidance.mode, 0,
                           t.obstacles ? &*t.obstacles : nullptr, t.hits, t.formations, t.map,
                           t.map_cleared, t.measurements ? &*t.measurements : nullptr,
                           t.sources ? &*t.sources : nullptr, t.exits ? &*t.exits : nullptr,
                           t.walls ? &*t.walls : nullptr, &t.events, health ? &*health : nullptr,
                           &remembered);
}

std::vector<SourceState> source_states(const sim::World& world) {
  std::vector<SourceState> out;
  out.reserve(world.sources().size());
  for (const sim::Source& s : world.sources())
    out.push_back({s.id, s.min, s.max, s.rate, s.total, s.spawned, s.remaining()});
  return out;
}

std::vector<ExitState> exit_states(const sim::World& world) {
  std::vector<ExitState> out;
  out.reserve(world.exits().size());
  for (const sim::Exit& e : world.exits()) out.push_back({e.id, e.min, e.max, e.removed});
  return out;
}

std::vector<MeasurementState> measurement_states(const sim::World& world) {
  std::vector<MeasurementState> out;
  out.reserve(world.measurements().size());
  for (const sim::Measurement& m : world.measurements()) {
    MeasurementState st;
    st.id = m.id;
    st.line = m.kind == sim::MeasurementKind::line;
    st.a = m.a;
    st.b = m.b;
    st.forward = m.totals.forward;
    st.backward = m.totals.backward;
    const sim::MeasurementReport& r = m.last;
    st.tick = r.tick;
    st.seconds = r.seconds;
    if (r.seconds > 0) {
      st.flow_forward = r.forward / r.seconds;
      st.flow_backward = r.backward / r.seconds;
    }
    st.mean_gap = r.mean_gap;
    st.count = r.count;
    st.density = r.density;
    st.mean_speed = r.mean_speed;
    out.push_back(st);
  }
  return out;
}

InspectTexts inspect_texts(const sim::World& world, const View& view,
                           const std::vector<std::uint64_t>* fog) {
  InspectTexts out;
  const AgentArrays arrays = agent_arrays(world);
  const Fog teams = SnapshotPlan::row(&SnapshotParts::traces).to.teams;
  for (sim::AgentId id : world.inspected()) {
    const sim::Agent* a = world.find(id);
    const sim::AvoidanceTrace* tr = a ? world.trace(id) : nullptr;
    if (!tr) continue;
    const auto i = static_cast<std::size_t>(a - arrays.agents.data());
    if (!fog) {
      const AgentState agent = agent_state(world, arrays, i, view);
      out.add(agent, with_stall(inspect_state(*a, *tr, [](sim::AgentId) { return true; }), agent));
      continue;
    }
    if (a->team == 0) continue;  // nobody's: no player's to inspect
    const View own{a->team, fog, true};
    const AgentState agent = agent_state(world, arrays, i, own);
    out.add(agent, with_stall(inspect_state(*a, *tr,
                                            [&](sim::AgentId other) {
                                              const sim::AgentId ids[] = {other};
                                              return shows(world, own, teams, ids);
                                            }),
                              agent));
  }
  out.finish();
  return out;
}

std::string encode_snapshot(const sim::World& world,
                            std::span<const sim::CollisionEvent> collisions,
                            const SnapshotParts& parts, std::uint64_t serial, const View& view,
                            std::span<const sim::GameEvent> events, const TeamMemory* memory,
                            bool explored) {
  const AgentArrays arrays = agent_arrays(world);
  const bool carried = SnapshotPlan::carries(parts, &SnapshotParts::agents, audience(view));
  const Fog teams = SnapshotPlan::row(&SnapshotParts::agents).to.teams;
  // Named members, not a structured binding: clang 14 (the sanitizer build) cannot capture one.
  const SnapshotTail t = snapshot_tail(world, collisions, parts, view, events, memory, explored);
  return write_object(
      [&](JsonWriter& w) {
        write_snapshot_head(w, world.tick(), world.time(), world.def().avoidance.mode, serial);
        w.key("agents");
        w.begin_array();
        for (std::size_t i = 0; carried && i < arrays.agents.size(); ++i)
          if (shows(view, teams, arrays.agents[i], i))
            write_agent(w, agent_state(world, arrays, i, view));
        w.end_array();
        write_tail(w, t);
      },
      128 + arrays.agents.size() * 140);
}

QuantState quantise(const sim::World& world, const QuantState* previous) {
  const auto agents = world.agents();
  return quantise_agents(
      world.tick(), world.time(), world.def().avoidance.mode, world.def().width, world.def().height,
      agents.size(),
      [&](std::size_t i) {
        const sim::Agent& a = agents[i];
        return RawAgent{a.id,         a.position.x,
                        a.position.y, a.velocity.x,
                        a.velocity.y, a.def.radius,
                        a.group,      static_cast<std::uint8_t>(a.state),
                        a.collided,   a.movement == sim::Movement::kinematic,
                        a.team};
      },
      previous);
}

}  // namespace herd::publish
