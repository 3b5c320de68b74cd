// Orders as RTS players give them: a group sent to one point (each to its own place, or to the
// point settling by contact, or into a formation), waypoints queued after the current order,
// attack-moves that engage enemies met on the way, patrols through several points, and stop.
// The orders an agent's behaviour does not hold (its queue, its patrol route, the enemies an
// attack-move has already engaged) live in the orders' part (order_service.hpp), which also
// carries them out step by step; here are the commands that give them.
#include <algorithm>
#include <cmath>

#include "assignment.hpp"
#include "formation.hpp"
#include "geometry.hpp"
#include "steering.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

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
  if (cmd.points.size() + 2 >
      OrderService::kMaxRoute)  // the route: its start, the target, the points
    return failure(
        CommandError::limit_exceeded,
        "a patrol goes through at most " + std::to_string(OrderService::kMaxRoute - 1) + " points");
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
    if (out.ok()) orders_.forget(agents_, indices);
    return out;
  }

  for (std::size_t i : indices) {
    if (cmd.queue && orders_.busy(agents_[i]) &&
        orders_.queued(agents_[i].id) >= OrderService::kMaxQueue)
      return failure(CommandError::limit_exceeded,
                     "agent " + std::to_string(agents_[i].id) + " has " +
                         std::to_string(OrderService::kMaxQueue) + " orders queued already");
  }
  // Where each starts this order from: where it will be once its queued orders are done.
  std::vector<Vec2> from(indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k)
    from[k] = cmd.queue && orders_.busy(agents_[indices[k]])
                  ? orders_.planned_end(agents_[indices[k]])
                  : agents_[indices[k]].position;
  bool converge = false;
  const std::vector<Vec2> goals = spread_goals(indices, from, point, spread, cmd.spacing, converge);
  // The route's later points keep each agent's place in the group.
  OrderService::Waypoint w;
  w.kind = kind;
  w.order = orders_.new_order();
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
    if (cmd.queue && orders_.busy(agents_[i])) {
      orders_.enqueue(agents_[i].id, w);
    } else {
      orders_.forget(agents_[i].id);
      orders_.start(agents_[i], w);
    }
  }
  out.affected = static_cast<std::uint32_t>(indices.size());
  return out;
}

CommandOutcome WorldImpl::apply_stop(const Stop& cmd) {
  return for_each_selected(cmd.agents, [&](Agent& a, std::size_t) {
    orders_.forget(a.id);
    a.behaviour = Behaviour{};
    a.behaviour.home = a.position;
    a.order = 0;
    a.state = MoveState::idle;
  });
}

}  // namespace herd::sim
