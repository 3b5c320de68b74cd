// The World's checkpoints: everything the future depends on, written exactly, so a
// restored world continues bit for bit as the saved one would have. Not saved: commands still
// queued for the next tick (their senders never got an ack), the last step's outcomes, events and
// traces, and caches that are rebuilt on demand (grids, flow fields).
#include <cstring>

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
// members avoid each other reciprocally (older ones use anti-gravity, as their servers did).
constexpr std::uint32_t kFormatVersion = 7;

template <class E>
E read_enum(Reader& r, E last) {
  const std::uint8_t v = r.u8();
  if (v > static_cast<std::uint8_t>(last)) r.fail();
  return static_cast<E>(v);
}

// An enum bounded by its kCount: a kind added to it is readable at once.
template <class E>
E read_enum(Reader& r) {
  return read_enum(r, static_cast<E>(static_cast<std::uint8_t>(E::kCount) - 1));
}

void write_def(Writer& w, const WorldDef& d) {
  w.f64(d.width);
  w.f64(d.height);
  w.f64(d.dt);
  w.u64(d.seed);
  w.u32(d.max_agents);
  w.u32(d.max_obstacles);
  const AgentDef& a = d.agent_defaults;
  w.f64(a.radius);
  w.f64(a.mass);
  w.f64(a.max_speed);
  w.f64(a.max_force);
  w.f64(a.slow_radius);
  w.f64(a.arrive_tolerance);
  const AvoidanceDef& v = d.avoidance;
  w.u8(static_cast<std::uint8_t>(v.mode));
  w.f64(v.personal_space);
  w.f64(v.cardioid_exponent);
  w.u8(static_cast<std::uint8_t>(v.preferred_side));
  w.u8(static_cast<std::uint8_t>(v.split_fix));
  w.f64(v.push_epsilon);
  w.boolean(v.crossing);
  w.f64(v.crossing_activation);
  w.f64(v.lookahead);
  w.u32(d.walker.max_history);
  w.f64(d.walker.move_time);
  w.i32(d.position_iterations);
  w.u32(v.max_neighbours);
}

WorldDef read_def(Reader& r, std::uint32_t version) {
  WorldDef d;
  d.width = r.f64();
  d.height = r.f64();
  d.dt = r.f64();
  d.seed = r.u64();
  d.max_agents = r.u32();
  d.max_obstacles = r.u32();
  AgentDef& a = d.agent_defaults;
  a.radius = r.f64();
  a.mass = r.f64();
  a.max_speed = r.f64();
  a.max_force = r.f64();
  a.slow_radius = r.f64();
  a.arrive_tolerance = r.f64();
  AvoidanceDef& v = d.avoidance;
  v.mode = read_enum(r, AvoidanceMode::cardioid);
  v.personal_space = r.f64();
  v.cardioid_exponent = r.f64();
  v.preferred_side = read_enum(r, Side::right);
  v.split_fix = read_enum(r, SplitFixMode::sum_as_obstacle);
  v.push_epsilon = r.f64();
  v.crossing = r.boolean();
  v.crossing_activation = r.f64();
  v.lookahead = r.f64();
  d.walker.max_history = r.u32();
  d.walker.move_time = r.f64();
  d.position_iterations = r.i32();
  v.max_neighbours = version >= 2 ? r.u32() : 0;
  return d;
}

void write_agent(Writer& w, const Agent& a) {
  w.u32(a.id);
  w.u8(a.group);
  w.u8(static_cast<std::uint8_t>(a.movement));
  w.u8(static_cast<std::uint8_t>(a.pathing));
  w.u8(a.neighbours);
  w.u8(static_cast<std::uint8_t>(a.state));
  w.boolean(a.collided);
  const Behaviour& b = a.behaviour;
  w.u8(static_cast<std::uint8_t>(b.kind));
  w.vec(b.point);
  w.u32(b.agent);
  w.f64(b.radius);
  w.u8(static_cast<std::uint8_t>(b.response));
  w.vec(b.home);
  w.u8(static_cast<std::uint8_t>(b.phase));
  w.vec(a.position);
  w.vec(a.velocity);
  w.f64(a.def.radius);
  w.f64(a.def.mass);
  w.f64(a.def.max_speed);
  w.f64(a.def.max_force);
  w.f64(a.def.slow_radius);
  w.f64(a.def.arrive_tolerance);
}

Agent read_agent(Reader& r) {
  Agent a;
  a.id = r.u32();
  a.group = r.u8();
  a.movement = read_enum(r, Movement::kinematic);
  a.pathing = read_enum(r, Pathing::flow);
  a.neighbours = r.u8();
  a.state = read_enum(r, MoveState::unreachable);
  a.collided = r.boolean();
  Behaviour& b = a.behaviour;
  b.kind = read_enum<BehaviourKind>(r);
  b.point = r.vec();
  b.agent = r.u32();
  b.radius = r.f64();
  b.response = read_enum<BehaviourKind>(r);
  b.home = r.vec();
  b.phase = read_enum(r, Phase::home);
  a.position = r.vec();
  a.velocity = r.vec();
  a.def.radius = r.f64();
  a.def.mass = r.f64();
  a.def.max_speed = r.f64();
  a.def.max_force = r.f64();
  a.def.slow_radius = r.f64();
  a.def.arrive_tolerance = r.f64();
  return a;
}

void write_path(Writer& w, const PathState& p) {
  const WalkerState& k = p.walker;
  w.tile(k.from);
  w.tile(k.to);
  w.tile(k.target);
  w.f64(k.chain_start);
  w.u64(k.chain_moves);
  w.u64(k.history.size());
  for (TileCoord t : k.history) w.tile(t);
  w.u64(k.moves);
  w.u8(static_cast<std::uint8_t>(k.status));
  w.boolean(p.walker_placed);
  w.u64(p.waypoints.size());
  for (Vec2 v : p.waypoints) w.vec(v);
  w.u64(p.next);
  w.boolean(p.planned_for.has_value());
  w.tile(p.planned_for.value_or(TileCoord{}));
  w.u64(p.planned_revision);
  w.boolean(p.unreachable);
}

PathState read_path(Reader& r) {
  PathState p;
  WalkerState& k = p.walker;
  k.from = r.tile();
  k.to = r.tile();
  k.target = r.tile();
  k.chain_start = r.f64();
  k.chain_moves = r.u64();
  k.history.resize(r.count(8));
  for (TileCoord& t : k.history) t = r.tile();
  k.moves = r.u64();
  k.status = read_enum(r, WalkerStatus::stuck);
  p.walker_placed = r.boolean();
  p.waypoints.resize(r.count(16));
  for (Vec2& v : p.waypoints) v = r.vec();
  p.next = r.u64();
  const bool planned = r.boolean();
  const TileCoord t = r.tile();
  if (planned) p.planned_for = t;
  p.planned_revision = r.u64();
  p.unreachable = r.boolean();
  return p;
}

}  // namespace

// Format 3's budgets, then the path queue and its search (PathService::read_queue).
bool WorldImpl::read_path_queue(Reader& r, WorldImpl& world) {
  world.def_.path_expansions_per_tick = r.u32();
  world.def_.assignment_costs_per_tick = r.u64();
  if (!validate(world.def_).empty()) return false;
  return world.pathing_.read_queue(r, world.map(), world.agents_.size());
}

bool WorldImpl::read_assignments(Reader& r, WorldImpl& world) {
  const std::size_t count = r.count(8 + 8 + 8 + 8);
  for (std::size_t c = 0; c < count && r.ok(); ++c) {
    PendingAssignment pa;
    pa.formation = r.u32();
    const std::size_t n = r.count(4 + 48);
    std::vector<Vec2> from(n), to(n);
    pa.agents.resize(n);
    pa.provisional.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      pa.agents[k] = r.u32();
      pa.provisional[k] = r.vec();
      from[k] = r.vec();
      to[k] = r.vec();
    }
    pa.parts.resize(r.count(4));
    for (std::uint32_t& part : pa.parts) part = r.u32();
    const std::uint64_t rows = r.u64();
    if (!r.ok() || rows >= n || (!pa.parts.empty() && pa.parts.size() != n))
      return false;  // a done one is never saved
    pa.assignment = OptimalAssignment(std::move(from), std::move(to));
    pa.assignment.advance_rows(rows);
    world.assignments_.push_back(std::move(pa));
  }
  return r.ok();
}

std::string WorldImpl::save_checkpoint() const {
  std::string payload;
  Writer w(payload);
  write_def(w, def_);
  w.u64(rng_.state());
  w.u64(tick_);
  w.u32(next_id_);
  w.u32(next_obstacle_id_);
  w.u64(obstacles_version_);
  w.u64(map_version_);
  w.u32(next_formation_id_);
  w.u64(agents_.size());
  for (const Agent& a : agents_) write_agent(w, a);
  w.u64(obstacles_.size());
  for (const Obstacle& o : obstacles_) {
    w.u32(o.id);
    w.vec(o.position);
    w.f64(o.radius);
  }
  w.boolean(map_.has_value());
  if (map_) {
    w.i32(map_->width());
    w.i32(map_->height());
    w.f64(map_->tile_size());
    w.bytes(std::string_view(reinterpret_cast<const char*>(map_->cells().data()),
                             map_->cells().size()));
  }
  for (std::size_t i = 0; i < agents_.size(); ++i) write_path(w, path_of(i));
  w.u64(formations_.size());
  for (const FormationRecord& f : formations_) {
    w.u32(f.id);
    w.u64(f.agents.size());
    for (std::size_t k = 0; k < f.agents.size(); ++k) {
      w.u32(f.agents[k]);
      w.vec(f.slots[k]);
    }
    w.u32(f.members);
    w.u32(f.arrived);
    w.boolean(f.complete);
  }
  w.u64(touching_.size());
  for (std::uint64_t t : touching_) w.u64(t);
  for (std::size_t i = 0; i < agents_.size(); ++i)
    w.u8(i < hit_subject_.size() ? hit_subject_[i] : 0);
  // Format 3's tail: the budgets, which paths are pending, the queue, the search, the assignments.
  w.u32(def_.path_expansions_per_tick);
  w.u64(def_.assignment_costs_per_tick);
  pathing_.write_queue(w, agents_.size());
  // Pending optimal assignments: their inputs and the rows done, replayed on load.
  w.u64(assignments_.size());
  for (const PendingAssignment& pa : assignments_) {
    w.u32(pa.formation);
    w.u64(pa.agents.size());
    for (std::size_t k = 0; k < pa.agents.size(); ++k) {
      w.u32(pa.agents[k]);
      w.vec(pa.provisional[k]);
      w.vec(pa.assignment.from()[k]);
      w.vec(pa.assignment.to()[k]);
    }
    w.u64(pa.parts.size());
    for (std::uint32_t part : pa.parts) w.u32(part);
    w.u64(pa.assignment.rows_done());
  }
  // Format 4's tail: each formation's unreachable places.
  for (const FormationRecord& f : formations_) {
    w.u64(f.checked_obstacles);
    w.u64(f.unreachable.size());
    for (const UnreachablePlace& u : f.unreachable) {
      w.u32(u.agent);
      w.vec(u.place);
      w.boolean(u.moved_to.has_value());
      w.vec(u.moved_to.value_or(Vec2{}));
      w.boolean(u.by_path);
    }
  }
  // Format 5's tail: which formations are paced.
  for (const FormationRecord& f : formations_) w.boolean(f.paced);
  // Format 6's tail: each formation's orbit.
  for (const FormationRecord& f : formations_) {
    w.boolean(f.orbit.has_value());
    w.vec(f.orbit.value_or(Vec2{}));
    w.f64(f.orbit_scale);
  }
  // Format 7's tail: which formations' members avoid each other reciprocally.
  for (const FormationRecord& f : formations_) w.boolean(f.reciprocal);

  std::string out(kMagic, sizeof kMagic);
  Writer head(out);
  head.u32(kFormatVersion);
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
  const WorldDef def = read_def(r, version);
  if (!r.ok()) return std::string("the checkpoint is corrupt (world definition)");
  if (std::string why = validate(def); !why.empty())
    return "the checkpoint's world is invalid: " + why;
  WorldImpl world(def);
  world.rng_.set_state(r.u64());
  world.tick_ = r.u64();
  world.next_id_ = r.u32();
  world.next_obstacle_id_ = r.u32();
  world.obstacles_version_ = r.u64();
  world.map_version_ = r.u64();
  world.next_formation_id_ = r.u32();
  world.agents_.resize(r.count(100));
  for (Agent& a : world.agents_) a = read_agent(r);
  world.obstacles_.resize(r.count(28));
  for (Obstacle& o : world.obstacles_) {
    o.id = r.u32();
    o.position = r.vec();
    o.radius = r.f64();
  }
  if (r.boolean()) {
    TileMapDef m;
    m.width = r.i32();
    m.height = r.i32();
    m.tile_size = r.f64();
    const std::string cells = r.bytes();
    m.cells.assign(cells.begin(), cells.end());
    if (!r.ok() || !validate(m).empty()) return std::string("the checkpoint's tile map is corrupt");
    world.map_.emplace(std::move(m));
  }
  // Every agent's pathing state is in the file; the world keeps them only while it has a map.
  for (std::size_t i = 0; i < world.agents_.size(); ++i) {
    PathState p = read_path(r);
    if (world.map_) world.pathing_.restore_path(std::move(p));
  }
  world.formations_.resize(r.count(13));
  for (FormationRecord& f : world.formations_) {
    f.id = r.u32();
    const std::size_t n = r.count(20);
    f.agents.resize(n);
    f.slots.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      f.agents[k] = r.u32();
      f.slots[k] = r.vec();
    }
    f.members = r.u32();
    f.arrived = r.u32();
    f.complete = r.boolean();
  }
  world.touching_.resize(r.count(8));
  for (std::uint64_t& t : world.touching_) t = r.u64();
  world.hit_subject_.resize(world.agents_.size());
  for (std::uint8_t& h : world.hit_subject_) h = r.u8();
  // Older servers planned every path and made every assignment at once.
  world.def_.path_expansions_per_tick = 1'000'000'000;
  world.def_.assignment_costs_per_tick = 1'000'000'000'000;
  if (version >= 3 && !read_path_queue(r, world))
    return std::string("the checkpoint's path queue is corrupt");
  if (version >= 3 && !read_assignments(r, world))
    return std::string("the checkpoint's pending assignments are corrupt");
  if (version >= 4) {
    for (FormationRecord& f : world.formations_) {
      f.checked_obstacles = r.u64();
      f.unreachable.resize(r.count(30));
      for (UnreachablePlace& u : f.unreachable) {
        u.agent = r.u32();
        u.place = r.vec();
        const bool moved = r.boolean();
        const Vec2 to = r.vec();
        if (moved) u.moved_to = to;
        u.by_path = r.boolean();
      }
    }
  }
  if (version >= 5)
    for (FormationRecord& f : world.formations_) f.paced = r.boolean();
  if (version >= 6)
    for (FormationRecord& f : world.formations_) {
      const bool orbit = r.boolean();
      const Vec2 centre = r.vec();
      f.orbit_scale = r.f64();
      if (orbit) f.orbit = centre;
      if (!(f.orbit_scale > 0 && f.orbit_scale <= 1))
        return std::string("the checkpoint's formations are corrupt");
    }
  if (version >= 7)
    for (FormationRecord& f : world.formations_) f.reciprocal = r.boolean();
  if (!r.ok() || r.remaining() != 0)
    return std::string("the checkpoint is corrupt (its contents do not add up)");
  for (std::size_t i = 1; i < world.agents_.size(); ++i)
    if (world.agents_[i].id <= world.agents_[i - 1].id)
      return std::string("the checkpoint is corrupt (agent ids out of order)");
  world.desires_.resize(world.agents_.size());
  return world;
}

}  // namespace herd::sim
