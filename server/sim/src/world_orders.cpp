// Orders as RTS players give them: a group sent to one point (each to its own place, or to the
// point settling by contact, or into a formation), waypoints queued after the current order,
// attack-moves that engage enemies met on the way, patrols through several points, and stop.
// The orders an agent's behaviour does not hold (its queue, its patrol route, the enemies an
// attack-move has already engaged) live in orders_, by id, for the few agents that have any.
#include <algorithm>
#include <cmath>

#include "assignment.hpp"
#include "formation.hpp"
#include "geometry.hpp"
#include "steering.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

// Standing still after it set out (not before it has started): held up in a press.
bool held_up(const Agent& a) {
  return length_squared(a.velocity) < WorldImpl::kStill * WorldImpl::kStill &&
         length_squared(a.position - a.behaviour.home) > a.def.radius * a.def.radius;
}

// Whether `to` (from an agent to another) lies within sixty degrees of `way` (from the agent to
// its place): the other stands in its way there.
bool in_the_way(Vec2 to, Vec2 way) { return 2 * dot(to, way) >= length(to) * length(way); }

// The n points of a hexagonal lattice of pitch `spacing` nearest the origin, nearest first
// (ties by angle, then x): a packed clump round the origin, as round as the lattice allows.
std::vector<Vec2> hex_clump(std::size_t n, double spacing) {
  const double row = spacing * std::sqrt(3.0) / 2;
  const double reach =
      spacing * std::sqrt(static_cast<double>(n) * std::sqrt(3.0) / (2 * kPi)) + 2 * spacing;
  const int rows = static_cast<int>(std::ceil(reach / row));
  const int cols = static_cast<int>(std::ceil(reach / spacing)) + 1;
  std::vector<Vec2> points;
  for (int j = -rows; j <= rows; ++j)
    for (int i = -cols; i <= cols; ++i) {
      const Vec2 p{(i + ((j & 1) != 0 ? 0.5 : 0.0)) * spacing, j * row};
      if (length_squared(p) <= reach * reach) points.push_back(p);
    }
  std::sort(points.begin(), points.end(), [](Vec2 a, Vec2 b) {
    const double da = length_squared(a), db = length_squared(b);
    if (da != db) return da < db;
    const double ta = std::atan2(a.y, a.x), tb = std::atan2(b.y, b.x);
    if (ta != tb) return ta < tb;
    return a.x < b.x;
  });
  points.resize(std::min(n, points.size()));
  return points;
}

// How far to move every point, all by the same amount, so that discs of radius r round them lie
// inside the world, as far as the spread fits (else centred in it).
Vec2 fit_shift(const std::vector<Vec2>& points, double r, double width, double height) {
  if (points.empty()) return {};
  Vec2 lo = points[0], hi = points[0];
  for (Vec2 g : points) {
    lo = {std::min(lo.x, g.x), std::min(lo.y, g.y)};
    hi = {std::max(hi.x, g.x), std::max(hi.y, g.y)};
  }
  auto shift = [](double low, double high, double min, double max) {
    if (high - low > max - min) return (min + max) / 2 - (low + high) / 2;
    if (low < min) return min - low;
    if (high > max) return max - high;
    return 0.0;
  };
  return {shift(lo.x, hi.x, r, width - r), shift(lo.y, hi.y, r, height - r)};
}

// Moves every point by fit_shift; each is then clamped on its own.
void fit_inside(std::vector<Vec2>& goals, double r, double width, double height) {
  const Vec2 by = fit_shift(goals, r, width, height);
  for (Vec2& g : goals)
    g = {std::clamp(g.x + by.x, std::min(r, width / 2), std::max(width - r, width / 2)),
         std::clamp(g.y + by.y, std::min(r, height / 2), std::max(height - r, height / 2))};
}

}  // namespace

std::vector<Vec2> WorldImpl::spread_goals(const std::vector<std::size_t>& indices,
                                          const std::vector<Vec2>& from, Vec2 point, Spread spread,
                                          double spacing, bool& converge) const {
  const std::size_t n = indices.size();
  converge = false;
  std::vector<Vec2> goals(n, point);
  if (spread != Spread::keep || n < 2) return goals;
  double r = 0;
  for (std::size_t i : indices) r = std::max(r, agents_[i].def.radius);
  const double s = spacing > 0 ? spacing : kClumpSpacing * r;
  Vec2 centre;
  for (Vec2 p : from) centre += p;
  centre = centre * (1.0 / static_cast<double>(n));
  std::vector<Vec2> offsets(n);
  double farthest = 0, spread2 = 0;
  for (std::size_t k = 0; k < n; ++k) {
    offsets[k] = from[k] - centre;
    farthest = std::max(farthest, length(offsets[k]));
    spread2 += length_squared(offsets[k]);
  }
  // A packed clump of n at spacing s reaches about this far from its centre (hexagonal packing,
  // plus half a spacing), and its agents lie at a root mean square distance of 1/sqrt(2) of that
  // from it: a group no looser (a tenth of slack: a square grid as dense is a little wider)
  // keeps its shape; a looser one converges into a clump.
  const double clump = s * std::sqrt(static_cast<double>(n) * std::sqrt(3.0) / (2 * kPi)) + s / 2;
  if (std::sqrt(spread2 / static_cast<double>(n)) <= 1.1 * clump / std::sqrt(2.0)) {
    for (std::size_t k = 0; k < n; ++k) goals[k] = point + offsets[k];
  } else {
    // Each agent's place in the clump lies where its offset, shrunk to the clump's size, does:
    // the group keeps its arrangement (who is on the left stays on the left).
    const std::vector<Vec2> places = hex_clump(n, s);
    double reach = 0;
    for (Vec2 p : places) reach = std::max(reach, length(p));
    std::vector<Vec2> shrunk(n);
    for (std::size_t k = 0; k < n; ++k) shrunk[k] = offsets[k] * (reach / farthest);
    const std::vector<std::uint32_t> slot = n <= kMaxImmediateAssignment
                                                ? assign_optimal(shrunk, places)
                                                : assign_bisection(shrunk, places);
    for (std::size_t k = 0; k < n; ++k) goals[k] = point + places[slot[k]];
    converge = true;
  }
  fit_inside(goals, r, def_.width, def_.height);
  // A place on a blocked tile: that agent goes to the point itself (checked reachable).
  if (map_)
    for (Vec2& g : goals)
      if (map_->blocked(map_->tile_at(g))) g = point;
  return goals;
}

bool WorldImpl::busy(std::size_t i) const {
  const Agent& a = agents_[i];
  const auto it = orders_.find(a.id);
  return a.state == MoveState::moving || (it != orders_.end() && !it->second.queue.empty());
}

Vec2 WorldImpl::planned_end(std::size_t i) const {
  const Agent& a = agents_[i];
  const auto it = orders_.find(a.id);
  if (it != orders_.end() && !it->second.queue.empty()) return it->second.queue.back().point;
  if (a.state == MoveState::moving && traits(a.behaviour.kind).takes_point &&
      a.behaviour.agent == kNoAgent)
    return a.behaviour.point;
  return a.position;
}

void WorldImpl::start_order(std::size_t i, const Waypoint& w) {
  Agent& a = agents_[i];
  a.behaviour = Behaviour{};
  a.behaviour.kind = w.kind;
  a.behaviour.point = w.point;
  a.behaviour.home = a.position;
  a.behaviour.phase = traits(w.kind).start;
  a.behaviour.settle = w.settle;
  a.behaviour.radius = w.radius;
  a.order = w.order;
  a.state = MoveState::moving;
  auto it = orders_.find(a.id);
  if (it != orders_.end()) {
    it->second.route.clear();
    it->second.leg = 0;
    it->second.engaged.clear();
  }
  // A patrol keeps its route here even through one point: settling moves the behaviour's point.
  if (w.kind == BehaviourKind::patrol) {
    Orders& o = it != orders_.end() ? it->second : orders_[a.id];
    o.route.reserve(w.route.size() + 2);
    o.route.push_back(a.position);
    o.route.push_back(w.point);
    o.route.insert(o.route.end(), w.route.begin(), w.route.end());
    o.leg = 1;
    o.route_settle = w.settle;
  } else if (it != orders_.end() && it->second.empty()) {
    orders_.erase(it);
  }
}

void WorldImpl::forget_orders(const std::vector<std::size_t>& indices) {
  if (orders_.empty()) return;
  for (std::size_t i : indices) orders_.erase(agents_[i].id);
}

CommandOutcome WorldImpl::apply_set_target(const SetTarget& cmd) {
  const BehaviourKind kind = cmd.behaviour;
  if (kind != BehaviourKind::arrive && kind != BehaviourKind::seek &&
      kind != BehaviourKind::attack_move && kind != BehaviourKind::patrol)
    return failure(CommandError::invalid_target,
                   "an order goes to a point by arrive, seek, attack_move or patrol");
  Vec2 point = cmd.target;
  if (cmd.target_tile) {
    if (!map_) return failure(CommandError::no_map, "target_tile needs a tile map; load one first");
    if (!map_->in_bounds(*cmd.target_tile))
      return failure(CommandError::out_of_bounds, "tile (" + std::to_string(cmd.target_tile->x) +
                                                      ", " + std::to_string(cmd.target_tile->y) +
                                                      ") is off the map");
    point = map_->tile_centre(*cmd.target_tile);
  }
  if (!inside(point))
    return failure(CommandError::out_of_bounds,
                   "target " + point_text(point) + " is outside the world");
  for (Vec2 p : cmd.points)
    if (!inside(p))
      return failure(CommandError::out_of_bounds,
                     "patrol point " + point_text(p) + " is outside the world");
  if (cmd.points.size() + 2 > kMaxRoute)  // the route: its start, the target, the points
    return failure(CommandError::limit_exceeded,
                   "a patrol goes through at most " + std::to_string(kMaxRoute - 1) + " points");
  CommandOutcome out;
  std::vector<std::size_t> indices;
  if (!select(cmd.agents, indices, out)) return out;
  if (CommandOutcome why = check_reachable(point, indices); !why.ok()) return why;
  for (Vec2 p : cmd.points)
    if (CommandOutcome why = check_reachable(p, indices); !why.ok()) return why;
  const bool on_paths = map_ && std::any_of(indices.begin(), indices.end(), [&](std::size_t i) {
                          return agents_[i].pathing != Pathing::direct;
                        });
  // Seekers circle their point: a group seeks the point itself. Agents on paths through a map
  // share their goal tile, and crowd into it as they always did (no settling) unless told.
  const bool seek = kind == BehaviourKind::seek;
  const Spread spread =
      cmd.spread.value_or(indices.size() > 1 && !on_paths && !seek ? Spread::keep : Spread::point);

  if (spread == Spread::formation) {
    if (cmd.queue || kind != BehaviourKind::arrive)
      return failure(CommandError::bad_selection,
                     "a formation is made at once, by arrive: it cannot be queued, seek, "
                     "attack-move or patrol");
    Vec2 centre;
    for (std::size_t i : indices) centre += agents_[i].position;
    centre = centre * (1.0 / static_cast<double>(indices.size()));
    const Vec2 way = point - centre;
    // Facing the direction of travel: a wedge's tip (its +x) points along it; the rows of lines
    // and blocks (along x) lie across it.
    double facing = way == Vec2{} ? 0 : std::atan2(way.y, way.x) * 180 / kPi;
    if (cmd.shape != Shape::wedge) facing -= 90;
    FormationDef def;
    def.shape = cmd.shape;
    def.centre = point;
    def.spacing = cmd.spacing;
    def.facing = facing;
    if (cmd.shape == Shape::lines) def.count = 2;
    // Near an edge, the formation forms as near the point as it fits at its spacing, as a group
    // keeping its places does, with a diameter's room along the edge for its members to walk
    // round to the places on that side; where it cannot fit at all, form() shrinks the spacing.
    double r = 0;
    for (std::size_t i : indices) r = std::max(r, agents_[i].def.radius);
    FormationDef sized = def;
    if (sized.spacing <= 0) sized.spacing = default_spacing(def.shape, r);
    def.centre += fit_shift(formation_slots(sized, indices.size()), 3 * r, def_.width, def_.height);
    out = formations_.form(formation_scene(), indices, def, rng_);
    if (out.ok()) forget_orders(indices);
    return out;
  }

  for (std::size_t i : indices) {
    const auto it = orders_.find(agents_[i].id);
    if (cmd.queue && busy(i) && it != orders_.end() && it->second.queue.size() >= kMaxQueue)
      return failure(CommandError::limit_exceeded, "agent " + std::to_string(agents_[i].id) +
                                                       " has " + std::to_string(kMaxQueue) +
                                                       " orders queued already");
  }
  // Where each starts this order from: where it will be once its queued orders are done.
  std::vector<Vec2> from(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k)
    from[k] =
        cmd.queue && busy(indices[k]) ? planned_end(indices[k]) : agents_[indices[k]].position;
  bool converge = false;
  const std::vector<Vec2> goals = spread_goals(indices, from, point, spread, cmd.spacing, converge);
  // The route's later points keep each agent's place in the group.
  Waypoint w;
  w.kind = kind;
  w.order = next_order_++;
  w.settle = seek || indices.size() < 2 || (on_paths && !cmd.spread) ? Settle::none
             : spread == Spread::point                               ? Settle::contact
             : converge                                              ? Settle::gather
                                                                     : Settle::near;
  w.radius = kind == BehaviourKind::attack_move ? cmd.radius : 0;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t i = indices[k];
    w.point = goals[k];
    w.route.clear();
    for (Vec2 p : cmd.points) {
      Vec2 q = p + (goals[k] - point);
      if (!inside(q) || (map_ && map_->blocked(map_->tile_at(q)))) q = p;
      w.route.push_back(q);
    }
    if (cmd.queue && busy(i))
      orders_[agents_[i].id].queue.push_back(w);
    else {
      forget_orders({i});
      start_order(i, w);
    }
  }
  out.affected = static_cast<std::uint32_t>(indices.size());
  return out;
}

CommandOutcome WorldImpl::apply_stop(const Stop& cmd) {
  return for_each_selected(cmd.agents, [&](Agent& a, std::size_t) {
    orders_.erase(a.id);
    a.behaviour = Behaviour{};
    a.behaviour.home = a.position;
    a.order = 0;
    a.state = MoveState::idle;
  });
}

std::vector<Vec2> WorldImpl::upcoming(AgentId id) const {
  std::vector<Vec2> out;
  const auto it = orders_.find(id);
  if (it == orders_.end()) return out;
  const Orders& o = it->second;
  if (!o.route.empty()) {  // the rest of one lap
    for (std::size_t k = 1; k < o.route.size(); ++k)
      out.push_back(o.route[(o.leg + k) % o.route.size()]);
    return out;
  }
  for (const Waypoint& w : o.queue) {
    out.push_back(w.point);
    out.insert(out.end(), w.route.begin(), w.route.end());
    if (w.kind == BehaviourKind::patrol) break;  // a patrol goes on for ever: nothing after it
  }
  return out;
}

// Before the step's desires, on the grid just built: agents settle by contact, attack-moves see
// and lose enemies, patrols turn at their route's points, and finished orders give way to the
// next queued one. Serial, reading last tick's states: decisions are made first and applied
// after, so none depends on the order the agents are visited in.
void WorldImpl::stage_orders() {
  if (next_order_ == 1) return;  // no order was ever given: no agent has one (a scan saved)
  struct Decision {
    std::size_t i;
    enum Kind { settle, engage, disengage, next_leg, next_order } kind;
    Vec2 point;
    AgentId enemy = kNoAgent;
  };
  std::vector<Decision> decisions;
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const Agent& a = agents_[i];
    if (a.order == 0) continue;
    const Behaviour& b = a.behaviour;
    const auto it = orders_.find(a.id);
    const Orders* o = it == orders_.end() ? nullptr : &it->second;
    // Done with this order: the next queued one, or the patrol's next point.
    const bool done =
        a.state == MoveState::arrived ||
        (b.kind == BehaviourKind::seek && length(b.point - a.position) <= a.def.radius);
    if (o && done && b.kind == BehaviourKind::patrol && !o->route.empty()) {
      decisions.push_back({i, Decision::next_leg, {}});
      continue;
    }
    if (o && done && !o->queue.empty() && b.kind != BehaviourKind::patrol &&
        !(b.kind == BehaviourKind::attack_move && b.phase == Phase::engage)) {
      decisions.push_back({i, Decision::next_order, {}});
      continue;
    }
    if (b.kind == BehaviourKind::attack_move) {
      const double sight = b.radius > 0 ? b.radius : kDefaultSight;
      if (b.phase == Phase::engage) {
        const Agent* enemy = subject_of(a);
        const bool lost =
            !enemy || length_squared(enemy->position - a.position) > (1.5 * sight) * (1.5 * sight);
        if (hit_subject_[i] != 0 || lost) decisions.push_back({i, Decision::disengage, {}});
        continue;
      }
      AgentId nearest = kNoAgent;
      double best = sight * sight;
      grid_.query_points(a.position, sight, [&](std::uint32_t j, Vec2 q, std::uint32_t) {
        const Agent& other = agents_[j];
        if (j == i || other.group == a.group) return;
        const double d2 = length_squared(q - a.position);
        if (d2 > best || (d2 == best && other.id > nearest)) return;
        if (o && std::find(o->engaged.begin(), o->engaged.end(), other.id) != o->engaged.end())
          return;
        best = d2;
        nearest = other.id;
      });
      if (nearest != kNoAgent) {
        decisions.push_back({i, Decision::engage, {}, nearest});
        continue;
      }
    }
    // Settled, but pushed off the spot it stopped at: it holds where it is now (braking to a
    // stop) rather than push its way back through those who settled round it.
    if (b.settle == Settle::settled && a.state == MoveState::moving) {
      if (b.point != a.position) decisions.push_back({i, Decision::settle, a.position});
      continue;
    }
    // Settling by contact: within braking distance of touching a stopped agent of its order.
    if ((b.settle != Settle::contact && b.settle != Settle::near && b.settle != Settle::gather) ||
        a.state != MoveState::moving)
      continue;
    const double accel = a.def.max_force / a.def.mass;
    const double speed = length(a.velocity);
    const double brake = speed * speed / (2 * accel);
    // Keeping its place in a group: near that place, or held up short of it, any stopped one of
    // its order it touches settles it; farther, only one in its way there (within sixty degrees
    // of it), where the others have settled round a place it cannot reach.
    const Vec2 way = b.point - a.position;
    const bool only_ahead =
        b.settle != Settle::contact && !held_up(a) && length(way) > 2 * a.def.radius + brake;
    // Held up within two radii of its place (the others' velocity obstacles hold it there): it
    // has arrived as near as it will get.
    if (b.settle != Settle::contact && held_up(a) &&
        length(b.point - a.position) <= 2 * a.def.radius) {
      decisions.push_back({i, Decision::settle, a.position});
      continue;
    }
    const double reach = brake + kSettleGap * a.def.radius;
    const double look = a.def.radius + max_agent_radius_ + reach;
    double gap = HUGE_VAL;
    grid_.query_points(a.position, look, [&](std::uint32_t j, Vec2 q, std::uint32_t) {
      const Agent& other = agents_[j];
      if (j == i || other.order != a.order) return;
      // Stopped: settled, arrived, or standing still in the press.
      if (other.behaviour.settle != Settle::settled && other.state != MoveState::arrived &&
          !held_up(other))
        return;
      if (only_ahead && !in_the_way(q - a.position, way)) return;
      gap = std::min(gap, length(q - a.position) - a.def.radius - other.def.radius);
    });
    if (gap > reach) continue;
    // Stops where its braking takes it, short of touching.
    const double run = std::clamp(std::min(brake, gap - reach + brake), 0.0, brake);
    decisions.push_back({i, Decision::settle, a.position + normalized_or_zero(a.velocity) * run});
  }
  for (const Decision& d : decisions) {
    Agent& a = agents_[d.i];
    Behaviour& b = a.behaviour;
    switch (d.kind) {
      case Decision::settle:
        // A patrol going back heads for its home (behaviour.cpp): that is where it stops.
        (b.kind == BehaviourKind::patrol && b.phase == Phase::back ? b.home : b.point) = d.point;
        b.settle = Settle::settled;
        break;
      case Decision::engage:
        b.agent = d.enemy;
        b.phase = Phase::engage;
        break;
      case Decision::disengage: {
        Orders& o = orders_[a.id];
        if (o.engaged.size() >= kMaxEngaged) o.engaged.erase(o.engaged.begin());
        o.engaged.push_back(b.agent);
        b.agent = kNoAgent;
        b.phase = Phase::advance;
        a.state = MoveState::moving;
        break;
      }
      case Decision::next_leg: {
        Orders& o = orders_[a.id];
        o.leg = static_cast<std::uint32_t>((o.leg + 1) % o.route.size());
        b.point = o.route[o.leg];
        b.home = o.route[0];
        b.phase = o.leg == 0 ? Phase::back : Phase::out;
        b.settle = o.route_settle;
        a.state = MoveState::moving;
        break;
      }
      case Decision::next_order: {
        Orders& o = orders_[a.id];
        const Waypoint w = o.queue.front();
        o.queue.erase(o.queue.begin());
        start_order(d.i, w);
        break;
      }
    }
  }
  std::erase_if(orders_, [](const auto& entry) { return entry.second.empty(); });
}

void WorldImpl::pace_orders() {
  order_tags_.clear();
  if (next_order_ == 1) return;  // no order was ever given: nobody settles or moves as a body
  bool keep = false, contact = false;
  for (const Agent& a : agents_) {
    const Settle s = a.behaviour.settle;
    keep = keep || s == Settle::near || s == Settle::gather ||
           (s == Settle::contact && a.state == MoveState::moving);
    contact = contact || (s == Settle::contact && a.state == MoveState::moving);
  }
  if (keep) {
    // A group keeping its shape moves as one body: its members' ways never meet (they translate
    // together), and they do not avoid one another. A group converging into a clump, or onto one
    // point, avoids itself by reciprocal velocity obstacles (the swap move's), which steer clear
    // of collisions where the anti-gravity pushes jostle.
    const std::span<const std::uint32_t> formed = formations_.together();
    order_tags_.assign(agents_.size(), 0);
    std::copy(formed.begin(), formed.end(), order_tags_.begin());
    for (std::size_t i = 0; i < agents_.size(); ++i) {
      const Agent& a = agents_[i];
      const Settle s = a.behaviour.settle;
      // Not one heading for another agent (an attack-move engaging): it must not avoid it.
      if (order_tags_[i] != 0 || (map_ && a.pathing != Pathing::direct) ||
          a.behaviour.agent != kNoAgent)
        continue;
      const std::uint32_t tag = (a.order & (kOrderTag - 1)) | kOrderTag;
      if (s == Settle::near)
        order_tags_[i] = tag;
      else if ((s == Settle::gather || s == Settle::contact) && a.state == MoveState::moving)
        order_tags_[i] = tag | FormationService::kReciprocal;  // those at rest stay put
    }
  }
  if (!contact) return;
  // Arrival by contact: a mover slows as arrive does, to stop a settling gap short of a stopped
  // agent of its order ahead of it, and queues behind a moving one (its speed along the way plus
  // what it can brake from in the gap), so that when the one ahead stops it stops too.
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const Agent& a = agents_[i];
    if (a.behaviour.settle != Settle::contact || a.state != MoveState::moving) continue;
    Desire& d = desires_[i];
    if (d.velocity == Vec2{}) continue;
    const double accel = a.def.max_force / a.def.mass;
    const double speed = length(d.velocity);
    const double settle_gap = kSettleGap * a.def.radius;
    const double look =
        a.def.radius + max_agent_radius_ + settle_gap +
        std::max(speed, length(a.velocity)) * std::max(speed, length(a.velocity)) / (2 * accel) +
        speed * def_.dt;
    const Vec2 way = d.velocity * (1 / speed);
    double cap = HUGE_VAL;
    grid_.query_points(a.position, look, [&](std::uint32_t j, Vec2 q, std::uint32_t) {
      const Agent& other = agents_[j];
      if (j == i || other.order != a.order) return;
      const double along = dot(q - a.position, way);
      const bool stopped =
          other.behaviour.settle == Settle::settled || other.state == MoveState::arrived;
      // In its way: a stopped one anywhere ahead; a moving one within a radius of its way.
      if (along <= 0 ||
          (!stopped && length_squared(q - a.position) - along * along >
                           (a.def.radius + other.def.radius) * (a.def.radius + other.def.radius)))
        return;
      const double gap = length(q - a.position) - a.def.radius - other.def.radius;
      const double ahead_speed = stopped ? 0.0 : std::max(0.0, dot(other.velocity, way));
      cap = std::min(
          cap, ahead_speed + stopping_speed(std::max(0.0, gap - settle_gap / 2), accel, def_.dt));
    });
    if (cap < speed) d.velocity = way * cap;
  }
}

void WorldImpl::keep_off_stopped() {
  if (next_order_ == 1) return;  // no order was ever given
  // At rest under an order: arrived, still. Its place is final; to those still coming it is as
  // solid as an obstacle: one that would walk into it stops at its edge (arrival by contact) and
  // keeps only the part of its velocity along it, instead of shoving it off its spot as the
  // elastic response would.
  bool any = false;
  for (const Agent& a : agents_) any = any || at_rest_in_order(a);
  if (!any) return;
  // Each mover's step, from where it started to where integration put it, is swept against the
  // discs of those at rest, which this pass never moves: no result depends on the order the
  // movers are visited in.
  constexpr double kClear = 1e-6;  // units: the hair kept between a mover and one at rest
  double extra = 0;                // the farthest a mover ends from where integration put it
  std::vector<std::uint32_t> rest;
  for (std::size_t k = 0; k < grid_.size(); ++k) {
    const std::size_t i = grid_.index(k);
    Agent& a = agents_[i];
    if (a.order == 0 || a.state != MoveState::moving || a.behaviour.agent != kNoAgent) continue;
    const Vec2 from = before_[i], to = a.position;
    if (from == to) continue;
    rest.clear();
    const double look = a.def.radius + max_agent_radius_ + moved_ + length(to - from) + kClear;
    grid_.query_points(to, look, [&](std::uint32_t j, Vec2, std::uint32_t) {
      if (j != i && at_rest_in_order(agents_[j])) rest.push_back(j);
    });
    if (rest.empty()) continue;
    std::sort(rest.begin(), rest.end());
    // Already touching one (put there by last tick's pushes): no step further into it.
    Vec2 step = to - from;
    bool stuck = false;
    for (int round = 0; round < 2; ++round)
      for (std::uint32_t j : rest) {
        const Agent& b = agents_[j];
        const double touch = a.def.radius + b.def.radius + kClear;
        const Vec2 off = from - b.position;
        if (length_squared(off) >= touch * touch) continue;
        const Vec2 n = normalized_or_zero(off);
        const double in = dot(step, n);
        if (in < 0) step -= n * in;
        const double vin = dot(a.velocity, n);
        if (vin < 0) a.velocity -= n * vin;
        stuck = true;
      }
    // The first disc the step would enter: it stops at its edge.
    double first = 1;
    const Agent* hit = nullptr;
    for (std::uint32_t j : rest) {
      const Agent& b = agents_[j];
      const double touch = a.def.radius + b.def.radius + 2 * kClear;
      const Vec2 off = from - b.position;
      const double c = length_squared(off) - touch * touch;
      if (c <= 0) continue;  // touching already (above)
      const double qa = length_squared(step), qb = dot(off, step);
      if (qa == 0 || qb >= 0) continue;  // not closing
      const double disc = qb * qb - qa * c;
      if (disc < 0) continue;
      const double t = (-qb - std::sqrt(disc)) / qa;
      if (t < first) {
        first = std::max(t, 0.0);
        hit = &b;
      }
    }
    if (!hit && !stuck) continue;
    a.position = from + step * first;
    if (hit) {
      const Vec2 n = normalized_or_zero(a.position - hit->position);
      const double vin = dot(a.velocity, n);
      if (vin < 0) a.velocity -= n * vin;
    }
    extra = std::max(extra, length(a.position - to));
    grid_.move(k, a.position);
    // Touching one at rest, it has arrived by contact (one heading for the point, or for a spot
    // it had stopped at); or, keeping a place in the group, as near that place as it will get:
    // within two radii of it, or with those at rest in its way to it (the one it touches within
    // sixty degrees of that way), where the others have settled round a place it cannot reach.
    Behaviour& b = a.behaviour;
    const bool contact = b.settle == Settle::contact || b.settle == Settle::settled;
    bool near = false;
    if (b.settle == Settle::near || b.settle == Settle::gather) {
      const Vec2 way = b.point - a.position;
      near = length_squared(way) <= 4 * a.def.radius * a.def.radius;
      for (std::uint32_t j : rest) {
        const Vec2 to = agents_[j].position - a.position;
        const double reach = a.def.radius + agents_[j].def.radius + 2 * kClear;
        near = near || (length_squared(to) <= reach * reach && in_the_way(to, way));
      }
    }
    if (contact || near) {
      b.point = a.position;
      b.settle = Settle::settled;
      a.velocity = {};
    }
  }
  moved_ += extra;
}

}  // namespace herd::sim
