// The World's checkpoints: everything the future depends on, written exactly, so a
// restored world continues bit for bit as the saved one would have. Not saved: commands still
// queued for the next tick (their senders never got an ack), the last step's outcomes, events and
// traces, and caches that are rebuilt on demand (grids, flow fields). Each record is described
// once, by a serialize function that saving and loading both run (serial.hpp's Save and Load),
// and the whole file's layout once, by serialize_state.
#include <bit>
#include <cmath>
#include <cstring>

#include "combat.hpp"
#include "serial.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

constexpr char kMagic[8] = {'H', 'E', 'R', 'D', 'C', 'K', 'P', 'T'};
// 2 added AvoidanceDef::max_neighbours; version 1 is still read (as no cap: the world goes on
// exactly as the server that wrote it would have run it). 3 added the path queue (WorldDef's
// budget, each path's pending flag, the queue and the search under way); older checkpoints are
// read with an unbounded budget, as their servers planned every path at once. 4 added each
// formation's unreachable places and the obstacles version they were checked at (older ones are
// checked afresh). 5 added whether each formation is paced (older ones are not: their servers
// did not pace). 6 added the centre a crossing move's members go round and how far its crowd
// may shrink (older ones go straight through, as their servers did). 7 added whether a move's
// members avoid each other reciprocally (older ones use anti-gravity, as their servers did). 8
// added the flow fields, which are built under the path budget since (older worlds build theirs
// afresh, under it). 9 added orders: each agent's order number and how it settles, and the
// queued orders, patrol routes and engaged enemies (older worlds had none). 10 added measurement
// lines and areas; 11 the state of wander, flock, follow_path and follow; 12 sources and exits;
// 13 walls (older worlds had none). 14 added avoidance mode orca and each agent's avoidance
// priority, layer and mask, and the world's defaults for them (older worlds' agents have the
// defaults: priority 50, layer 1, every bit of the mask, as their servers ran them). 15 added each
// agent's team and sight and the world's default sight (older worlds' agents are nobody's, with
// the default sight of 200). 16 writes each follow_path path once, shared by the agents that
// follow it (older files hold a copy per agent, read as they are). 17 added avoidance mode cfsm
// and its parameters (older worlds have the defaults, which no other mode reads). 18 added each
// agent's stall record (herd/sim/stall.hpp: how long it has been slow, its heading reversals and
// last heading, its reason and the agents responsible); older worlds' agents start with none, as
// if every one had just been at speed. 19 added health and weapons: each agent's max_hp, weapon,
// hit points and reload, the world's defaults for them, and the sources' templates' settings
// (older worlds' agents are unarmed and unhurt, at the default 100 hit points).
constexpr std::uint32_t kFormatVersion = 19;

// The world's definition; format 2 added the neighbour cap (older files had none: no cap).
template <CheckpointStream S>
void serialize(S& s, WorldDef& d) {
  s.f64(d.width);
  s.f64(d.height);
  s.f64(d.dt);
  s.u64(d.seed);
  s.u32(d.max_agents);
  s.u32(d.max_obstacles);
  AgentDef& a = d.agent_defaults;
  s.f64(a.radius);
  s.f64(a.mass);
  s.f64(a.max_speed);
  s.f64(a.max_force);
  s.f64(a.slow_radius);
  s.f64(a.arrive_tolerance);
  AvoidanceDef& v = d.avoidance;
  s.enumeration(v.mode, s.version() >= 17   ? AvoidanceMode::cfsm
                        : s.version() >= 14 ? AvoidanceMode::orca
                                            : AvoidanceMode::cardioid);
  s.f64(v.personal_space);
  s.f64(v.cardioid_exponent);
  s.enumeration(v.preferred_side, Side::right);
  s.enumeration(v.split_fix, SplitFixMode::sum_as_obstacle);
  s.f64(v.push_epsilon);
  s.boolean(v.crossing);
  s.f64(v.crossing_activation);
  s.f64(v.lookahead);
  s.u32(d.walker.max_history);
  s.f64(d.walker.move_time);
  s.i32(d.position_iterations);
  if (s.version() >= 2)
    s.u32(v.max_neighbours);
  else
    v.max_neighbours = 0;  // loading only: saving writes the newest format
  if (s.version() >= 17) {
    s.f64(v.time_gap);
    s.f64(v.repulsion_strength);
    s.f64(v.repulsion_range);
    s.f64(v.wall_repulsion_strength);
    s.f64(v.wall_repulsion_range);
  }
}

template <CheckpointStream S>
void serialize(S& s, Agent& a) {
  s.u32(a.id);
  s.u8(a.group);
  s.enumeration(a.movement, Movement::kinematic);
  s.enumeration(a.pathing, Pathing::flow);
  s.u8(a.neighbours);
  s.enumeration(a.state, MoveState::unreachable);
  s.boolean(a.collided);
  Behaviour& b = a.behaviour;
  s.enumeration(b.kind);
  s.vec(b.point);
  s.u32(b.agent);
  s.f64(b.radius);
  s.enumeration(b.response);
  s.vec(b.home);
  s.enumeration(b.phase, Phase::engage);
  s.vec(a.position);
  s.vec(a.velocity);
  s.f64(a.def.radius);
  s.f64(a.def.mass);
  s.f64(a.def.max_speed);
  s.f64(a.def.max_force);
  s.f64(a.def.slow_radius);
  s.f64(a.def.arrive_tolerance);
}

template <CheckpointStream S>
void serialize(S& s, Obstacle& o) {
  s.u32(o.id);
  s.vec(o.position);
  s.f64(o.radius);
}

template <CheckpointStream S>
void serialize(S& s, PathState& p) {
  WalkerState& k = p.walker;
  s.tile(k.from);
  s.tile(k.to);
  s.tile(k.target);
  s.f64(k.chain_start);
  s.u64(k.chain_moves);
  s.items(k.history, 8, [&](auto& t) { s.tile(t); });
  s.u64(k.moves);
  s.enumeration(k.status, WalkerStatus::stuck);
  s.boolean(p.walker_placed);
  s.items(p.waypoints, 16, [&](auto& v) { s.vec(v); });
  s.size(p.next);
  s.optional_tile(p.planned_for);
  s.u64(p.planned_revision);
  s.boolean(p.unreachable);
}

// The tile map, when there is one: its size, then its cells as one string.
template <CheckpointStream S>
void serialize(S& s, std::optional<TileMap>& map) {
  bool has = map.has_value();
  s.boolean(has);
  if (!has) return;
  TileMapDef m;
  if constexpr (!S::kLoading) {
    m.width = map->width();
    m.height = map->height();
    m.tile_size = map->tile_size();
  }
  s.i32(m.width);
  s.i32(m.height);
  s.f64(m.tile_size);
  if constexpr (S::kLoading) {
    std::string cells;
    s.bytes(cells);
    m.cells.assign(cells.begin(), cells.end());
    s.check(validate(m).empty());
    if (s.ok()) map.emplace(std::move(m));
  } else {  // the cells as they are, not copied
    s.bytes(
        std::string_view(reinterpret_cast<const char*>(map->cells().data()), map->cells().size()));
  }
}

}  // namespace

// ---- the parts' sections ----------------------------------------------------------------------

// The queue, and the search under way: on loading, replayed to the expansion it had reached. The
// same inputs and the same count give the same open list (A* is deterministic), so the world
// goes on as the saved one would.
template <CheckpointStream S>
bool PathService::serialize_queue(S& s, const TileMap* map, std::size_t agents) {
  for (std::size_t i = 0; i < agents; ++i) {
    if constexpr (S::kLoading) {
      bool pending = false;
      s.boolean(pending);
      if (pending && i >= paths_.size()) return false;  // pending needs a map
      if (pending) paths_[i].pending = true;
    } else {
      s.boolean(path_of(i).pending);
    }
  }
  s.items(queue_, 4, [&](auto& id) { s.u32(id); });
  Search& q = search_;
  s.u32(q.agent);
  s.tile(q.start);
  s.tile(q.goal);
  s.u8(q.neighbours);
  s.u64(q.revision);
  std::uint32_t expanded = q.agent != kNoAgent ? finder_.result().expanded : 0;
  s.u32(expanded);
  if constexpr (S::kLoading) return s.ok() && replay_search(map, expanded);
  return true;
}

template <CheckpointStream S>
bool PathService::serialize_fields(S& s, const TileMap* map, std::uint64_t map_version) {
  s.u64(plans_);
  s.u64(fields_kept_);
  const auto valid = [&](FieldKey key) {
    return map && key.first < map->tile_count() && (key.second == 4 || key.second == 8);
  };
  // Kept fields: goal and use; the fields themselves are rebuilt on load (the same map gives the
  // same field). Fields for an older map version are never used again and are not written.
  std::size_t kept = fields_version_ == map_version ? fields_.size() : 0;
  s.count(kept, 21);
  if constexpr (S::kLoading) {
    fields_version_ = map_version;
    if (kept > 0 && (!map || kept > field_capacity(*map))) return false;
    for (std::size_t k = 0; k < kept && s.ok(); ++k) {
      FieldKey key;
      CachedField f;
      s.u32(key.first);
      s.u8(key.second);
      s.u64(f.last_used);
      s.u64(f.kept);
      if (!s.ok() || !valid(key)) return false;
      f.field = std::make_unique<FlowField>();
      f.field->build(*map, map->coord(key.first), neighbourhood_of(key.second));
      if (!fields_.emplace(key, std::move(f)).second) return false;
    }
  } else {
    for (auto& [key, f] : fields_) {
      if (kept == 0) break;
      FieldKey k = key;
      s.u32(k.first);
      s.u8(k.second);
      s.u64(f.last_used);
      s.u64(f.kept);
    }
  }
  s.items(field_queue_, 5, [&](FieldKey& key) {
    s.u32(key.first);
    s.u8(key.second);
  });
  // The build under way, replayed to the work it had done; one begun on an older map version
  // starts again when next served, as if it had done nothing.
  s.boolean(build_.active);
  s.u32(build_.key.first);
  s.u8(build_.key.second);
  std::uint64_t work = build_.active && build_.version == map_version ? building_->work() : 0;
  s.u64(work);
  if constexpr (S::kLoading) {
    if (!s.ok()) return false;
    for (FieldKey key : field_queue_)
      if (!valid(key) || !field_queued_.insert(key).second || fields_.contains(key)) return false;
    if (!build_.active) return true;
    if (!valid(build_.key) || field_queued_.contains(build_.key) || fields_.contains(build_.key))
      return false;
    build_.version = map_version;
    building_->begin(*map, map->coord(build_.key.first), neighbourhood_of(build_.key.second));
    return !building_->resume(*map, work) && building_->work() == work;
  }
  return true;
}

template <CheckpointStream S>
void FormationService::serialize_next_id(S& s) {
  s.u32(next_id_);
}

// Each record's members and places, then what it counted at the last formations stage.
template <CheckpointStream S>
void FormationService::serialize_records(S& s) {
  s.items(records_, 13, [&](FormationRecord& f) {
    s.u32(f.id);
    std::size_t n = f.agents.size();
    s.count(n, 20);
    f.agents.resize(n);
    f.slots.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      s.u32(f.agents[k]);
      s.vec(f.slots[k]);
    }
    s.u32(f.members);
    s.u32(f.arrived);
    s.boolean(f.complete);
  });
}

// Each pending assignment's inputs and the rows done: on loading, the rows are done again.
template <CheckpointStream S>
void FormationService::serialize_pending(S& s) {
  s.items(pending_, 8 + 8 + 8 + 8, [&](Pending& p) {
    s.u32(p.formation);
    std::size_t n = p.agents.size();
    s.count(n, 4 + 48);
    p.agents.resize(n);
    p.provisional.resize(n);
    std::vector<Vec2> from(n), to(n);
    if constexpr (!S::kLoading) {
      from.assign(p.assignment.from().begin(), p.assignment.from().end());
      to.assign(p.assignment.to().begin(), p.assignment.to().end());
    }
    for (std::size_t k = 0; k < n; ++k) {
      s.u32(p.agents[k]);
      s.vec(p.provisional[k]);
      s.vec(from[k]);
      s.vec(to[k]);
    }
    s.items(p.parts, 4, [&](auto& part) { s.u32(part); });
    std::uint64_t steps = p.assignment.steps_done();
    s.u64(steps);
    if constexpr (S::kLoading) {
      // Replayed step by step (a done one is never saved; a count past the end only finishes it,
      // and the next tick applies it).
      s.check(p.parts.empty() || p.parts.size() == n);
      if (!s.ok()) return;
      p.assignment = OptimalAssignment(std::move(from), std::move(to));
      p.assignment.advance_steps(steps);
    }
  });
}

// The records' fields later formats added, each format's in its own pass over the records:
// unreachable places and the obstacles version they were checked at (4), whether the members are
// paced (5), the centre a crossing move goes round and how far its crowd may shrink (6), and
// whether the members avoid each other reciprocally (7). Older files leave the defaults.
template <CheckpointStream S>
void FormationService::serialize_record_tails(S& s) {
  if (s.version() >= 4)
    for (FormationRecord& f : records_) {
      s.u64(f.checked_obstacles);
      s.items(f.unreachable, 30, [&](UnreachablePlace& u) {
        s.u32(u.agent);
        s.vec(u.place);
        s.optional_vec(u.moved_to);
        s.boolean(u.by_path);
      });
    }
  if (s.version() >= 5)
    for (FormationRecord& f : records_) s.boolean(f.paced);
  if (s.version() >= 6)
    for (FormationRecord& f : records_) {
      s.optional_vec(f.orbit);
      s.f64(f.orbit_scale);
      s.check(f.orbit_scale > 0 && f.orbit_scale <= 1);
    }
  if (s.version() >= 7)
    for (FormationRecord& f : records_) s.boolean(f.reciprocal);
}

// What commands could never have made, in a loaded checkpoint whose checksum was recomputed: the
// same limits as the commands' (AgentDefLimits, ObstacleLimits), finite numbers, ids the world
// would give out, and a tick whose time is exact.
std::string WorldImpl::loaded_records_invalid() const {
  const auto finite = [](Vec2 v) { return std::isfinite(v.x) && std::isfinite(v.y); };
  if (tick_ > (std::uint64_t{1} << 53)) return "the checkpoint's tick is out of range";
  for (const Agent& a : agents_) {
    const std::string who = "the checkpoint's agent " + std::to_string(a.id);
    if (std::string why = validate(a.def); !why.empty()) return who + " is invalid: " + why;
    if (!finite(a.position) || !finite(a.velocity) || !finite(a.behaviour.point) ||
        !finite(a.behaviour.home) || !std::isfinite(a.behaviour.radius) || a.behaviour.radius < 0)
      return who + " has a number out of range";
    if (a.id == kNoAgent || a.id >= next_id_) return who + " has an id the world never gave";
  }
  for (const Obstacle& o : obstacles_.items) {
    if (!inside(o.position) || !(o.radius >= ObstacleLimits::kMinRadius) ||
        !(o.radius <= ObstacleLimits::kMaxRadius))
      return "the checkpoint's obstacle " + std::to_string(o.id) + " is out of range";
    if (o.id == 0 || o.id >= obstacles_.next_id)
      return "the checkpoint's obstacle " + std::to_string(o.id) + " has an id never given";
  }
  return {};
}

// ---- the file ----------------------------------------------------------------------------------

// The payload after the world's definition, in the format's order; later formats' additions
// follow at the end, each in its own tail. Returns what is corrupt (empty when nothing is).
template <CheckpointStream S>
std::string WorldImpl::serialize_state(S& s, WorldImpl& w) {
  constexpr bool kLoading = S::kLoading;
  std::uint64_t rng_state = w.rng_.state();
  s.u64(rng_state);
  if constexpr (kLoading) w.rng_.set_state(rng_state);
  s.u64(w.tick_);
  s.u32(w.next_id_);
  s.u32(w.obstacles_.next_id);
  s.u64(w.obstacles_.version);
  s.u64(w.map_version_);
  w.formations_.serialize_next_id(s);
  s.items(w.agents_, 100, [&](Agent& a) { serialize(s, a); });
  s.items(w.obstacles_.items, 28, [&](Obstacle& o) { serialize(s, o); });
  if (!s.ok()) return "the checkpoint's agents or obstacles are corrupt";
  if constexpr (kLoading) {
    if (std::string why = w.loaded_records_invalid(); !why.empty()) return why;
  }
  serialize(s, w.map_);
  if (!s.ok()) return "the checkpoint's tile map is corrupt";
  // Every agent's pathing state is in the file; the world keeps them only while it has a map.
  for (std::size_t i = 0; i < w.agents_.size(); ++i) {
    if constexpr (kLoading) {
      PathState p;
      serialize(s, p);
      if (w.map_) w.pathing_.restore_path(std::move(p));
    } else {
      serialize(s, const_cast<PathState&>(w.path_of(i)));
    }
  }
  w.formations_.serialize_records(s);
  s.items(w.contacts_.touching, 8, [&](auto& t) { s.u64(t); });
  if constexpr (kLoading) w.contacts_.hit_subject.resize(w.agents_.size());
  for (std::size_t i = 0; i < w.agents_.size(); ++i) {
    std::uint8_t hit = i < w.contacts_.hit_subject.size() ? w.contacts_.hit_subject[i] : 0;
    s.u8(hit);
    if constexpr (kLoading) w.contacts_.hit_subject[i] = hit;
  }
  // Format 3: the budgets, which paths are pending, the queue and its search, the pending
  // assignments. Older servers planned every path and made every assignment at once.
  if (s.version() >= 3) {
    s.u32(w.def_.path_expansions_per_tick);
    s.u64(w.def_.assignment_costs_per_tick);
    s.check(validate(w.def_).empty());
    if (!s.ok() || !w.pathing_.serialize_queue(s, w.map(), w.agents_.size()))
      return "the checkpoint's path queue is corrupt";
    w.formations_.serialize_pending(s);
    if (!s.ok()) return "the checkpoint's pending assignments are corrupt";
  } else if constexpr (kLoading) {
    w.def_.path_expansions_per_tick = 1'000'000'000;
    w.def_.assignment_costs_per_tick = 1'000'000'000'000;
  }
  // Formats 4 to 7: what they added to each formation's record.
  w.formations_.serialize_record_tails(s);
  if (!s.ok()) return "the checkpoint's formations are corrupt";
  if (s.version() >= 8 && !w.pathing_.serialize_fields(s, w.map(), w.map_version_))
    return "the checkpoint's flow fields are corrupt";
  if (s.version() >= 9 && !w.orders_.serialize(s, w.agents_))
    return "the checkpoint's orders are corrupt";
  // Format 10: measurement lines and areas.
  if (s.version() >= 10) {
    if (std::string why = w.measurements_.serialize(s, w.def_.width, w.def_.height); !why.empty())
      return why;
  }
  if (s.version() >= 11 && !w.steering_.serialize(s))
    return "the checkpoint's steering state is corrupt";
  // Format 12: sources and exits, whose agent templates are held to the commands' limits.
  if (s.version() >= 12) {
    if (std::string why = w.sources_.serialize(s, w.def_.width, w.def_.height); !why.empty())
      return why;
    for (const Source& src : w.sources_.sources())
      if (std::string why = validate(w.template_def(src.agent)); !why.empty())
        return "the checkpoint's source " + std::to_string(src.id) + " is invalid: " + why;
  }
  // Format 13: walls.
  if (s.version() >= 13)
    if (std::string why = w.walls_.serialize(s, w.def_.width, w.def_.height); !why.empty())
      return why;
  // Format 14: the agents' avoidance priorities, layers and masks, and the world's defaults.
  if (s.version() >= 14) {
    auto rules = [&](AgentDef& d) {
      s.u8(d.priority);
      s.u32(d.layer);
      s.u32(d.mask);
      s.check(d.priority <= AgentDefLimits::kMaxPriority);
    };
    rules(w.def_.agent_defaults);
    for (Agent& a : w.agents_) rules(a.def);
    // Each source's template: which of the three it sets (bits 0, 1, 2), then all three.
    for (Source& src : w.sources_.sources()) {
      AgentTemplate& t = src.agent;
      std::uint8_t set = (t.priority ? 1 : 0) | (t.layer ? 2 : 0) | (t.mask ? 4 : 0);
      std::uint8_t priority = t.priority.value_or(0);
      std::uint32_t layer = t.layer.value_or(0), mask = t.mask.value_or(0);
      s.u8(set);
      s.u8(priority);
      s.u32(layer);
      s.u32(mask);
      s.check(set < 8 && priority <= AgentDefLimits::kMaxPriority);
      t.priority = set & 1 ? std::optional(priority) : std::nullopt;
      t.layer = set & 2 ? std::optional(layer) : std::nullopt;
      t.mask = set & 4 ? std::optional(mask) : std::nullopt;
    }
    if (!s.ok()) return "the checkpoint's avoidance priorities are corrupt";
  }
  // Format 15: teams and sight. A float's bits, as the agent keeps it.
  if (s.version() >= 15) {
    auto sight = [&](AgentDef& d) {
      std::uint32_t bits = std::bit_cast<std::uint32_t>(d.sight);
      s.u32(bits);
      d.sight = std::bit_cast<float>(bits);
      s.check(std::isfinite(d.sight) && d.sight >= 0 && d.sight <= AgentDefLimits::kMaxSight);
    };
    sight(w.def_.agent_defaults);
    for (Agent& a : w.agents_) {
      sight(a.def);
      s.u8(a.team);
      s.check(a.team <= AgentDefLimits::kMaxTeam);
    }
    if (!s.ok()) return "the checkpoint's teams or sight are corrupt";
  }
  // Format 18: the stall records, one per agent (the float heading by its bits).
  if (s.version() >= 18) {
    std::vector<Stall>& stalls = w.stalls_.records();
    if constexpr (kLoading) stalls.assign(w.agents_.size(), Stall{});
    stalls.resize(w.agents_.size());
    for (Stall& st : stalls) {
      s.u32(st.slow_ticks);
      s.enumeration(st.reason, StallReason::blocked);
      std::uint32_t flips = st.flips;
      s.u32(flips);
      s.check(flips <= UINT16_MAX);
      st.flips = static_cast<std::uint16_t>(flips);
      s.u8(st.by_count);
      s.check(st.by_count <= StallRule::kMaxBy);
      for (AgentId& id : st.by) s.u32(id);
      std::uint32_t hx = std::bit_cast<std::uint32_t>(st.heading_x);
      std::uint32_t hy = std::bit_cast<std::uint32_t>(st.heading_y);
      s.u32(hx);
      s.u32(hy);
      st.heading_x = std::bit_cast<float>(hx);
      st.heading_y = std::bit_cast<float>(hy);
      s.check(std::isfinite(st.heading_x) && std::isfinite(st.heading_y));
    }
    if (!s.ok()) return "the checkpoint's stall records are corrupt";
    if constexpr (kLoading) w.stalls_.recount(w.def_.dt);
  } else if constexpr (kLoading) {
    w.stalls_.records().assign(w.agents_.size(), Stall{});
  }
  // Format 19: health and weapons, floats by their bits as the agents keep them.
  if (s.version() >= 19) {
    auto f32 = [&](float& v) {
      std::uint32_t bits = std::bit_cast<std::uint32_t>(v);
      s.u32(bits);
      v = std::bit_cast<float>(bits);
    };
    auto combat = [&](AgentDef& d) {
      f32(d.max_hp);
      f32(d.weapon.damage);
      f32(d.weapon.range);
      f32(d.weapon.cooldown);
      s.check(d.max_hp > 0 && d.max_hp <= AgentDefLimits::kMaxHp && validate(d.weapon).empty());
    };
    combat(w.def_.agent_defaults);
    // Each agent: which of its settings and state are not the defaults (bit 0: max_hp and weapon,
    // bit 1: hit points and reload), then those: a world without weapons adds a byte an agent.
    for (Agent& a : w.agents_) {
      std::uint8_t set = (a.def.max_hp != AgentDef{}.max_hp || a.def.weapon != Weapon{} ? 1 : 0) |
                         (a.hp != a.def.max_hp || a.reload != 0 ? 2 : 0);
      s.u8(set);
      s.check(set < 4);
      if (set & 1) combat(a.def);
      if (set & 2) {
        f32(a.hp);
        s.u32(a.reload);
      } else if constexpr (kLoading) {
        a.hp = a.def.max_hp;
      }
      s.check(a.hp > 0 && a.hp <= a.def.max_hp &&
              a.reload <= cooldown_ticks(a.def.weapon.cooldown, w.def_.dt));
    }
    // Each source's template: which settings it gives (bits 0 to 3), then those four.
    for (Source& src : w.sources_.sources()) {
      CombatSettings& c = src.agent.combat;
      std::optional<double>* fields[] = {&c.max_hp, &c.damage, &c.range, &c.cooldown};
      std::uint8_t set = 0;
      for (std::size_t k = 0; k < 4; ++k)
        if (*fields[k]) set = static_cast<std::uint8_t>(set | 1U << k);
      s.u8(set);
      s.check(set < 16);
      for (std::size_t k = 0; k < 4; ++k) {
        double v = fields[k]->value_or(0);
        s.f64(v);
        *fields[k] = (set >> k & 1) != 0 ? std::optional(v) : std::nullopt;
      }
      s.check(validate(c, w.def_.agent_defaults).empty());
    }
    if (!s.ok()) return "the checkpoint's health and weapons are corrupt";
  } else if constexpr (kLoading) {
    for (Agent& a : w.agents_) a.hp = a.def.max_hp;
  }
  return {};
}

std::string WorldImpl::save_checkpoint() const { return save_checkpoint(kFormatVersion); }

std::string WorldImpl::save_checkpoint(std::uint32_t version) const {
  std::string payload;
  Writer w(payload);
  Save s(w, version);
  // Saving only reads what it is given: the world is not changed.
  WorldImpl& self = const_cast<WorldImpl&>(*this);
  serialize(s, self.def_);
  serialize_state(s, self);

  std::string out(kMagic, sizeof kMagic);
  Writer head(out);
  head.u32(version);
  head.bytes(payload);
  head.u64(fnv1a(payload));
  return out;
}

std::variant<WorldImpl, std::string> WorldImpl::load_checkpoint(std::string_view data) {
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    return std::string("not a herd checkpoint (wrong magic)");
  Reader head(data.substr(sizeof kMagic));
  const std::uint32_t version = head.u32();
  if (!head.ok() || version < 1 || version > kFormatVersion)
    return "checkpoint format " + std::to_string(version) + " is not one of the supported 1 to " +
           std::to_string(kFormatVersion);
  const std::string payload = head.bytes();
  const std::uint64_t checksum = head.u64();
  if (!head.ok()) return std::string("the checkpoint is truncated");
  if (head.remaining() != 0)
    return std::string("the checkpoint has bytes after its end: it is corrupt");
  if (fnv1a(payload) != checksum)
    return std::string("the checkpoint's checksum does not match: it is corrupt");

  Reader r(payload);
  Load s(r, version);
  WorldDef def;
  serialize(s, def);
  if (!s.ok()) return std::string("the checkpoint is corrupt (world definition)");
  if (std::string why = validate(def); !why.empty())
    return "the checkpoint's world is invalid: " + why;
  WorldImpl world(def);
  if (std::string why = serialize_state(s, world); !why.empty()) return why;
  if (!r.ok() || r.remaining() != 0)
    return std::string("the checkpoint is corrupt (its contents do not add up)");
  for (std::size_t i = 1; i < world.agents_.size(); ++i)
    if (world.agents_[i].id <= world.agents_[i - 1].id)
      return std::string("the checkpoint is corrupt (agent ids out of order)");
  world.desires_.resize(world.agents_.size());
  return world;
}

}  // namespace herd::sim
