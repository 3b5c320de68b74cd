// The world's formations: the formation and demo commands, the pending assignments, pacing and
// the records (formation_service.hpp).
#include "formation_service.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "agent_index.hpp"
#include "command_failure.hpp"
#include "formation.hpp"
#include "geometry.hpp"

namespace herd::sim {
namespace {

double widest_radius(const std::vector<Agent>& agents, const std::vector<std::size_t>& indices) {
  double widest = 0;
  for (std::size_t i : indices) widest = std::max(widest, agents[i].def.radius);
  return widest;
}

// The agent `id` if it is still arriving at `point` with no subject (a formation's member), else
// null. `at` is a search cursor: members mostly come in id order, so each search starts at the
// last one found.
Agent* still_arriving_at(std::vector<Agent>& agents, AgentId id, Vec2 point, std::size_t& at) {
  at = index_of_from(agents, id, at);
  if (at >= agents.size()) {
    at = 0;
    return nullptr;
  }
  Agent& a = agents[at];
  const bool member = a.behaviour.kind == BehaviourKind::arrive && a.behaviour.agent == kNoAgent &&
                      a.behaviour.point == point;
  return member ? &a : nullptr;
}

// The nearest point to `p` where an agent of radius r stands clear of every obstacle (by a margin)
// inside the world and off blocked tiles: pushed out of each obstacle it is in, a few times over
// for obstacles that touch; none when that does not settle.
std::optional<Vec2> free_point_near(const FormationService::Scene& scene, Vec2 p, double r) {
  constexpr double kMargin = 0.5;
  Vec2 q = p;
  for (int round = 0; round < 8; ++round) {
    const Obstacle* inside = nullptr;
    scene.obstacle_index.query_within(q, r + kMargin, [&](std::uint32_t k) {
      const Obstacle& o = scene.obstacles[k];
      const double clear = o.radius + r + kMargin;
      if (!inside && length_squared(q - o.position) < clear * clear) inside = &o;
    });
    if (!inside) {
      const bool in_world =
          q.x >= r && q.x <= scene.def.width - r && q.y >= r && q.y <= scene.def.height - r;
      if (!in_world || (scene.map && scene.map->blocked(scene.map->tile_at(q))))
        return std::nullopt;
      return q;
    }
    Vec2 out = normalized_or_zero(q - inside->position);
    if (out == Vec2{}) out = normalized_or_zero(p - inside->position);
    if (out == Vec2{}) out = {1, 0};
    q = inside->position + out * (inside->radius + r + kMargin);
  }
  return std::nullopt;
}

// The first of `slots` an agent of radius r cannot stand on inside the world, if any.
std::optional<Vec2> outside_world(const std::vector<Vec2>& slots, double r, const WorldDef& def) {
  for (const Vec2& t : slots)
    if (!(t.x >= r && t.x <= def.width - r && t.y >= r && t.y <= def.height - r)) return t;
  return std::nullopt;
}

// A layout given no spacing must fit the world it is made in (the demo's P: two lines of 24 at
// the default 4 radii are 752 units long, in a world 600 high): when the default spacing does
// not fit, the largest that does, down to touching (2 radii between centres), found by
// bisection (every shape only grows with its spacing). Refused only when even touching does not
// fit; `def.spacing` is set to the spacing chosen.
std::optional<CommandOutcome> fit_spacing(const FormationService::Scene& scene, FormationDef& def,
                                          std::size_t n, double radius) {
  constexpr int kRounds = 24;  // the spacing to within a 16-millionth of the range
  const auto misfit = [&](double spacing) {
    FormationDef d = def;
    d.spacing = spacing;
    return outside_world(formation_slots(d, n), radius, scene.def);
  };
  if (!misfit(def.spacing)) return std::nullopt;
  const double touching = 2 * radius;
  if (const std::optional<Vec2> out = misfit(touching))
    return failure(CommandError::out_of_bounds,
                   "the formation does not fit the world, even with its agents touching (" +
                       number_text(touching) + " apart): a place at " + point_text(*out) +
                       " is outside it");
  double fits = touching, too_wide = def.spacing;
  for (int round = 0; round < kRounds; ++round) {
    const double mid = 0.5 * (fits + too_wide);
    (misfit(mid) ? too_wide : fits) = mid;
  }
  def.spacing = fits;
  return std::nullopt;
}

}  // namespace

CommandOutcome FormationService::send_to(const Scene& scene,
                                         const std::vector<std::size_t>& indices,
                                         const std::vector<Vec2>& targets) {
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const Agent& a = scene.agents[indices[k]];
    const Vec2 t = targets[k];
    const double r = a.def.radius;
    if (!(t.x >= r && t.x <= scene.def.width - r && t.y >= r && t.y <= scene.def.height - r))
      return failure(CommandError::out_of_bounds, "the formation does not fit the world: agent " +
                                                      std::to_string(a.id) + "'s place " +
                                                      point_text(t) + " is outside it");
    // Only walls are checked up front here (reachability of every slot would cost a flow field
    // per slot); an unreachable slot shows as state "unreachable".
    if (scene.map && scene.map->blocked(scene.map->tile_at(t)))
      return failure(CommandError::unreachable,
                     "agent " + std::to_string(a.id) + "'s place is on a blocked tile");
  }
  FormationRecord record;
  record.id = next_id_++;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    Agent& a = scene.agents[indices[k]];
    a.behaviour = Behaviour{};
    a.behaviour.kind = BehaviourKind::arrive;
    a.behaviour.point = targets[k];
    a.behaviour.home = a.position;
    a.state = MoveState::moving;
    record.agents.push_back(a.id);
    record.slots.push_back(targets[k]);
  }
  if (records_.size() >= kMaxRecords) records_.erase(records_.begin());
  records_.push_back(std::move(record));
  CommandOutcome out;
  out.affected = static_cast<std::uint32_t>(indices.size());
  out.formation = records_.back().id;
  return out;
}

CommandOutcome FormationService::form(const Scene& scene, const std::vector<std::size_t>& indices,
                                      const FormationDef& form_def, Rng& rng) {
  if (indices.empty()) return failure(CommandError::bad_selection, "no agents to form");
  if (form_def.assignment == SlotAssignment::optimal &&
      indices.size() > World::kMaxOptimalAssignment)
    return failure(CommandError::limit_exceeded,
                   "optimal assignment takes at most " +
                       std::to_string(World::kMaxOptimalAssignment) +
                       " agents; use bisection, keep_order or shuffle");
  FormationDef def = form_def;
  if (def.assignment == SlotAssignment::automatic)
    def.assignment = indices.size() <= World::kMaxOptimalAssignment ? SlotAssignment::optimal
                                                                    : SlotAssignment::bisection;
  if (def.spacing <= 0) {
    const double widest = widest_radius(scene.agents, indices);
    def.spacing = default_spacing(def.shape, widest);
    if (std::optional<CommandOutcome> misfit = fit_spacing(scene, def, indices.size(), widest))
      return *misfit;
  }
  const std::vector<Vec2> slots = formation_slots(def, indices.size());
  std::vector<Vec2> from;
  for (std::size_t i : indices) from.push_back(scene.agents[i].position);
  std::vector<std::uint32_t> slot;
  const bool deferred =
      def.assignment == SlotAssignment::optimal && indices.size() > World::kMaxImmediateAssignment;
  switch (def.assignment) {
    case SlotAssignment::optimal:
      slot = deferred ? assign_bisection(from, slots) : assign_optimal(from, slots);
      break;
    case SlotAssignment::keep_order:
      slot = assign_in_order(indices.size());
      break;
    case SlotAssignment::shuffle:
      slot = assign_shuffled(indices.size(), rng);
      break;
    case SlotAssignment::bisection:
      slot = assign_bisection(from, slots);
      break;
    case SlotAssignment::automatic:
      break;  // resolved above
  }
  std::vector<Vec2> targets;
  for (std::uint32_t s : slot) targets.push_back(slots[s]);
  CommandOutcome sent = send_to(scene, indices, targets);
  // Places reached between others (a block's inner ones, a wedge's, the middle line of lines) are
  // paced; a circle's or a line's are all on the outside. Only an optimal assignment's paths are
  // known not to meet when walked together.
  if (sent.ok() && def.shape != Shape::circle && def.shape != Shape::line &&
      (def.assignment == SlotAssignment::optimal || def.assignment == SlotAssignment::bisection))
    records_.back().paced = true;
  if (sent.ok() && def.regroup) {
    const auto parts = formation_parts(def, indices.size());
    for (std::size_t k = 0; k < indices.size(); ++k)
      scene.agents[indices[k]].group = static_cast<std::uint8_t>(parts[slot[k]] % 256);
  }
  if (sent.ok() && deferred) {
    Pending pa;
    pa.formation = *sent.formation;
    for (std::size_t i : indices) pa.agents.push_back(scene.agents[i].id);
    pa.provisional = targets;
    if (def.regroup) pa.parts = formation_parts(def, indices.size());
    pa.assignment = OptimalAssignment(std::move(from), slots);
    pending_.push_back(std::move(pa));
  }
  return sent;
}

CommandOutcome FormationService::demo(const Scene& scene, const std::vector<std::size_t>& indices,
                                      const Demo& cmd, Rng& rng) {
  if (indices.size() < 2)
    return failure(CommandError::bad_selection, "a demo move needs at least two agents");
  std::vector<Vec2> from;
  for (std::size_t i : indices) from.push_back(scene.agents[i].position);
  const Vec2 c = centroid(from);
  std::vector<Vec2> targets(indices.size());
  switch (cmd.move) {
    case DemoMove::swap_places: {
      const auto perm = assign_cycle(indices.size(), rng);  // nobody keeps its own place
      for (std::size_t k = 0; k < indices.size(); ++k) targets[k] = from[perm[k]];
      break;
    }
    case DemoMove::opposite:
      // Sectors around the centre become the groups (coloured apart); everyone crosses to the
      // point opposite through the centre, so each group ends on the far side.
      for (std::size_t k = 0; k < indices.size(); ++k) {
        const double a = angle_of(from[k] - c) + kPi;  // [0, 2 pi]
        const auto sector = static_cast<std::uint32_t>(a / (2 * kPi) * cmd.groups) % cmd.groups;
        scene.agents[indices[k]].group = static_cast<std::uint8_t>(sector);
        targets[k] = c * 2.0 - from[k];
      }
      break;
    case DemoMove::invert:
      // Point reflection through the centre: two lines swap sides and each reverses its order.
      for (std::size_t k = 0; k < indices.size(); ++k) targets[k] = c * 2.0 - from[k];
      break;
    case DemoMove::exchange: {
      std::vector<std::uint8_t> groups;
      for (std::size_t i : indices)
        if (std::find(groups.begin(), groups.end(), scene.agents[i].group) == groups.end())
          groups.push_back(scene.agents[i].group);
      std::vector<std::size_t> a_side, b_side;
      for (std::size_t k = 0; k < indices.size(); ++k)
        (scene.agents[indices[k]].group == groups[0] ? a_side : b_side).push_back(k);
      if (groups.size() != 2 || a_side.size() != b_side.size())
        return failure(CommandError::bad_selection,
                       "exchange needs exactly two groups of the same size in the selection");
      if (a_side.size() > World::kMaxOptimalAssignment)
        return failure(CommandError::limit_exceeded,
                       "exchange assigns at most " + std::to_string(World::kMaxOptimalAssignment) +
                           " agents a side");
      // Each side takes the other's places, with the optimal assignment (least squared travel).
      auto trade = [&](const std::vector<std::size_t>& movers,
                       const std::vector<std::size_t>& places) {
        std::vector<Vec2> src, dst;
        for (std::size_t k : movers) src.push_back(from[k]);
        for (std::size_t k : places) dst.push_back(from[k]);
        const auto slot = assign_optimal(src, dst);
        for (std::size_t m = 0; m < movers.size(); ++m) targets[movers[m]] = dst[slot[m]];
      };
      trade(a_side, b_side);
      trade(b_side, a_side);
      break;
    }
  }
  CommandOutcome sent = send_to(scene, indices, targets);
  // Everyone crosses the crowd every which way: the members avoid each other reciprocally.
  if (sent.ok() && cmd.move == DemoMove::swap_places) records_.back().reciprocal = true;
  if (sent.ok() && (cmd.move == DemoMove::opposite || cmd.move == DemoMove::invert)) {
    records_.back().orbit = c;
    records_.back().orbit_scale = orbit_scale_for(from, widest_radius(scene.agents, indices),
                                                  scene.def.width, scene.def.height);
  }
  return sent;
}

// Pending optimal assignments, oldest first, within the tick's budget of cost evaluations; each
// one done is applied before the agents move this tick.
void FormationService::serve_assignments(const Scene& scene) {
  std::uint64_t budget = scene.def.assignment_costs_per_tick;
  while (budget > 0 && !pending_.empty()) {
    Pending& pa = pending_.front();
    const std::uint64_t spent = pa.assignment.advance(budget);
    budget -= std::min(budget, spent);
    if (!pa.assignment.done()) break;
    finish_assignment(scene, pa);
    pending_.pop_front();
  }
}

// Each agent still heading for its provisional slot (not given another order since) heads for
// its optimal one instead, and the formation's record follows.
void FormationService::finish_assignment(const Scene& scene, const Pending& pa) {
  const std::vector<std::uint32_t> slot = pa.assignment.slots();
  auto record = std::find_if(records_.begin(), records_.end(),
                             [&](const FormationRecord& f) { return f.id == pa.formation; });
  std::size_t at = 0;
  for (std::size_t k = 0; k < pa.agents.size(); ++k) {
    Agent* member = still_arriving_at(scene.agents, pa.agents[k], pa.provisional[k], at);
    if (!member) continue;
    Agent& a = *member;
    const Vec2 t = pa.assignment.to()[slot[k]];
    const double r = a.def.radius;
    if (!(t.x >= r && t.x <= scene.def.width - r && t.y >= r && t.y <= scene.def.height - r))
      continue;  // a larger agent's place
    a.behaviour.point = t;
    if (a.state == MoveState::arrived) a.state = MoveState::moving;
    if (!pa.parts.empty()) a.group = static_cast<std::uint8_t>(pa.parts[slot[k]] % 256);
    if (record != records_.end() && k < record->agents.size() && record->agents[k] == a.id)
      record->slots[k] = t;
  }
  if (record != records_.end())
    record->checked_obstacles = FormationRecord::kNeverChecked;  // places moved
}

std::uint64_t FormationService::assignment_work_pending() const {
  std::uint64_t work = 0;
  for (const Pending& pa : pending_) work += pa.assignment.work_left();
  return work;
}

// Places inside an obstacle, checked when the formation is new and whenever obstacles change:
// each is reported and, where there is room, moved beside the obstacle (its agent heads there).
void FormationService::check_places(const Scene& scene, FormationRecord& f) {
  if (f.checked_obstacles == scene.obstacles_version) return;
  f.checked_obstacles = scene.obstacles_version;
  std::erase_if(f.unreachable, [](const UnreachablePlace& u) { return !u.by_path; });
  if (scene.obstacles.empty()) return;
  std::size_t at = 0;
  for (std::size_t k = 0; k < f.agents.size(); ++k) {
    Agent* member = still_arriving_at(scene.agents, f.agents[k], f.slots[k], at);
    if (!member) continue;
    Agent& a = *member;
    const std::optional<Vec2> free = free_point_near(scene, f.slots[k], a.def.radius);
    if (free && *free == f.slots[k]) continue;  // clear
    f.unreachable.push_back({a.id, f.slots[k], free, false});
    if (!free) continue;
    a.behaviour.point = *free;
    if (a.state == MoveState::arrived) a.state = MoveState::moving;
    f.slots[k] = *free;
  }
}

// Paced formations' members arrive together and crossing moves' members go round the centre
// (pace_straight and pace_round), and this tick's tags.
void FormationService::pace(const Scene& scene, std::span<Desire> desires) {
  together_.clear();
  for (const FormationRecord& f : records_) {
    if (f.reciprocal) {
      if (!f.complete) tag_reciprocal(scene, f);
      continue;
    }
    // Complete with nobody held back: every member stands in its place, nothing to pace (a
    // formation's record stays while its members stand there).
    if ((!f.paced && !f.orbit) || (f.complete && f.unreachable.empty())) continue;
    if (f.orbit)
      pace_round(scene, f, desires);
    else
      pace_straight(scene, f, desires);
  }
}

bool FormationService::assigning(std::uint32_t formation) const {
  return std::any_of(pending_.begin(), pending_.end(),
                     [&](const Pending& p) { return p.formation == formation; });
}

// A paced formation's members arrive together, as an RTS formation moves. Shapes with inner places
// (blocks, wedges, rows of lines) need it: otherwise the near places fill first and those bound for
// the inner ones thread through standing ranks or go round them (measured, 100 agents from a ring
// into a block: 1.50 times the ideal, paced 1.11). Each moving member goes no faster than its way
// still to go times the pace's rate: that of the member with the longest time left at full speed
// (the lead), its arrive speed over its way left. Every way left then shrinks by the same share
// each tick and all reach zero with the lead's, braking included; a member knocked off its way
// goes faster to catch up, or becomes the lead the others wait for. (Paced by the way from where
// each was sent, a member pushed back stayed as slow as its short way allowed and arrived seconds
// late, into ranks already closed.)
//
// With its places final (the optimal assignment's, or bisection's beyond it), the members move as
// one body and do not avoid each other: walked in proportion, the optimal (squared) assignment's
// ways never meet, and two members that start H apart with places D apart stay at least
// H D / sqrt(H^2 + D^2) apart (cyclic monotonicity, assignment.hpp), nearly a diameter for any
// start clear of touching at the default spacings. Avoiding each other only pushed them off those
// ways, and at a diameter's gap (4 radii apart) into standing ranks they could not close: 1,000
// agents of radius 3 from a random start into a 40 x 25 block, 982 in place after 30 s; as one
// body, 1.12 times the ideal (herd-bench formations --start random, docs/performance.md). While a
// large assignment is still worked out its members head for bisection's places, whose ways may
// meet: until then they avoid each other reciprocally (1,000 from a random start in 800 x 600:
// 1.58 times the ideal as one body throughout, 1.53 so). Members following paths through a map
// keep to them and avoid as everyone does.
void FormationService::pace_straight(const Scene& scene, const FormationRecord& f,
                                     std::span<Desire> desires) {
  const std::uint32_t tag =
      ((f.id + 1) & kFormationBits) | (assigning(f.id) ? kReciprocal : 0u);  // ids from 0
  struct Member {
    std::size_t index;
    double left;  // its way still to go
  };
  std::vector<Member> moving;
  std::size_t at = 0;
  for (std::size_t k = 0; k < f.agents.size(); ++k) {
    const Agent* a = still_arriving_at(scene.agents, f.agents[k], f.slots[k], at);
    if (!a) continue;
    if (!(scene.map && a->pathing != Pathing::direct)) {
      together_.resize(scene.agents.size(), 0);
      together_[at] = tag;
    }
    if (a->state != MoveState::moving) continue;
    moving.push_back({at, length(f.slots[k] - a->position)});
  }
  const Member* lead = nullptr;  // the first with the longest time left, in member order
  double lead_time = 0;
  for (const Member& m : moving) {
    const double max_speed = scene.agents[m.index].def.max_speed;
    if (max_speed > 0 && m.left / max_speed > lead_time) {
      lead_time = m.left / max_speed;
      lead = &m;
    }
  }
  if (!lead) return;
  const double rate = length(desires[lead->index].velocity) / lead->left;
  if (!(rate > 0)) return;  // the lead waits (for a path): nobody is held back meanwhile
  for (const Member& m : moving)
    desires[m.index].velocity = clamp_length(desires[m.index].velocity, m.left * rate);
}

// A crossing move's members are paced the same way by their ways round its centre (Round above),
// each no faster than its way from where it was sent over the farthest member's time at full
// speed (a floor keeps the nearest moving at a tenth of full speed at least), are turned onto
// those ways, and do not avoid each other.
void FormationService::pace_round(const Scene& scene, const FormationRecord& f,
                                  std::span<Desire> desires) {
  constexpr double kFloor = 0.1;
  const double sense = scene.def.avoidance.preferred_side == Side::right ? 1.0 : -1.0;
  const auto round_for = [&](Vec2 home, Vec2 slot) {
    return Round{*f.orbit,
                 f.orbit_scale * std::min(length(home - *f.orbit), length(slot - *f.orbit)), sense};
  };
  // By member: its agent's index (scene.agents.size() when not a member) and its way's length.
  std::vector<std::size_t> index(f.agents.size(), scene.agents.size());
  std::vector<double> way(f.agents.size(), 0);
  double lead = 0;
  std::size_t at = 0;
  for (std::size_t k = 0; k < f.agents.size(); ++k) {
    const Agent* a = still_arriving_at(scene.agents, f.agents[k], f.slots[k], at);
    if (!a) continue;
    const Vec2 home = a->behaviour.home;
    index[k] = at;
    way[k] = way_round_length(round_for(home, f.slots[k]), home, f.slots[k]);
    if (a->def.max_speed > 0) lead = std::max(lead, way[k] / a->def.max_speed);
  }
  if (!(lead > 0)) return;
  together_.resize(scene.agents.size(), 0);
  for (std::size_t k = 0; k < f.agents.size(); ++k) {
    if (index[k] == scene.agents.size()) continue;
    const Agent& a = scene.agents[index[k]];
    Desire& d = desires[index[k]];
    if (a.state != MoveState::moving) continue;
    if (scene.map && a.pathing != Pathing::direct) continue;  // its path through the map leads it
    const double cap = std::max(way[k] / lead, kFloor * a.def.max_speed);
    together_[index[k]] = (f.id + 1) & kFormationBits;  // ids from 0: 0 is none
    d.velocity = way_round(round_for(a.behaviour.home, f.slots[k]), a.position, f.slots[k]) *
                 std::min(length(d.velocity), cap);
  }
}

// A reciprocal move's members still heading for their places (standing in them included) are
// tagged with it; those with the farthest to go (at least kCriticalShare of the farthest, and at
// most kCriticalAtMost of the members) are its critical ones, who decide when the move completes.
// Measured on grids of 32 to 1,000: at 0.8 and more, members pushed back by a critical one become
// the stragglers; at 0.6, critical ones crowd each other. From a ring, the longest ways all cross
// its centre at once and half the crowd has 0.7 of the farthest: as equals there they piled up
// (2,000 agents: overlap 1.29 units, 0.69 capped at a fifth; 5,000: 2.55, 1.55). Members following
// paths through a map keep to them and avoid as everyone else does.
void FormationService::tag_reciprocal(const Scene& scene, const FormationRecord& f) {
  constexpr double kCriticalShare = 0.7, kCriticalAtMost = 0.2;
  together_.resize(scene.agents.size(), 0);
  const std::uint32_t tag = ((f.id + 1) & kFormationBits) | kReciprocal;
  struct Member {
    std::size_t index;
    double left;  // its way still to go
  };
  std::vector<Member> members;
  std::size_t at = 0;
  for (std::size_t k = 0; k < f.agents.size(); ++k) {
    const Agent* a = still_arriving_at(scene.agents, f.agents[k], f.slots[k], at);
    if (!a || (scene.map && a->pathing != Pathing::direct)) continue;
    together_[at] = tag;
    members.push_back({at, length(f.slots[k] - a->position)});
  }
  std::vector<double> left;
  for (const Member& m : members) left.push_back(m.left);
  const double farthest = left.empty() ? 0.0 : *std::max_element(left.begin(), left.end());
  if (!(farthest > 0)) return;
  double threshold = kCriticalShare * farthest;
  const auto most = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::ceil(kCriticalAtMost * static_cast<double>(left.size()))));
  if (most < left.size()) {
    std::nth_element(left.begin(), left.begin() + static_cast<std::ptrdiff_t>(most - 1), left.end(),
                     std::greater<double>());
    threshold = std::max(threshold, left[most - 1]);
  }
  for (const Member& m : members)
    if (m.left >= threshold) together_[m.index] |= kCritical;
}

void FormationService::update(const Scene& scene) {
  // A member still in the formation is one still arriving at its slot; the formation is complete
  // when every such member has arrived. A member whose place cannot be reached (inside an
  // obstacle with no room beside it, or no path there) is reported and does not hold the rest
  // back. Formations nobody is still in are dropped.
  std::erase_if(records_, [&](FormationRecord& f) {
    check_places(scene, f);
    std::erase_if(f.unreachable, [](const UnreachablePlace& u) { return u.by_path; });
    // What is left are places inside obstacles; those with no room beside them kept their place.
    std::vector<AgentId> no_room;
    for (const UnreachablePlace& u : f.unreachable)
      if (!u.moved_to) no_room.push_back(u.agent);
    std::uint32_t members = 0, arrived = 0, held = 0;  // held: still there, but cannot arrive
    std::size_t at = 0;
    for (std::size_t k = 0; k < f.agents.size(); ++k) {
      const Agent* a = still_arriving_at(scene.agents, f.agents[k], f.slots[k], at);
      if (!a) continue;
      if (!no_room.empty() && std::find(no_room.begin(), no_room.end(), a->id) != no_room.end()) {
        ++held;
        continue;
      }
      if (a->state == MoveState::unreachable) {
        f.unreachable.push_back({a->id, f.slots[k], std::nullopt, true});
        ++held;
        continue;
      }
      ++members;
      arrived += a->state == MoveState::arrived;
    }
    f.members = members;
    f.arrived = arrived;
    f.complete = members > 0 && arrived == members;
    return members + held == 0;
  });
}

}  // namespace herd::sim
