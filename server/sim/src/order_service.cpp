// The orders' part (order_service.hpp): the orders kept by id, and the stages that carry them
// out. Each stage reads the world only through the Scene the step hands it.
#include "order_service.hpp"

#include <algorithm>
#include <cmath>

#include "agent_index.hpp"
#include "behaviour.hpp"
#include "combat.hpp"
#include "formation_service.hpp"
#include "geometry.hpp"
#include "steering.hpp"

namespace herd::sim {
namespace {

// Standing still after it set out (not before it has started): held up in a press.
bool held_up(const Agent& a) {
  return length_squared(a.velocity) < OrderService::kStill * OrderService::kStill &&
         length_squared(a.position - a.behaviour.home) > a.def.radius * a.def.radius;
}

constexpr double kClear = 1e-6;  // units: the hair kept between a mover and one at rest

// The agent a behaviour heads for, while it is there.
const Agent* subject_of(std::span<const Agent> agents, const Agent& a) {
  if (a.behaviour.agent == kNoAgent) return nullptr;
  const std::size_t j = index_of(agents, a.behaviour.agent);
  return j < agents.size() ? &agents[j] : nullptr;
}

}  // namespace

bool OrderService::busy(const Agent& a) const {
  const auto it = orders_.find(a.id);
  return a.state == MoveState::moving || (it != orders_.end() && !it->second.queue.empty());
}

Vec2 OrderService::planned_end(const Agent& a) const {
  const auto it = orders_.find(a.id);
  if (it != orders_.end() && !it->second.queue.empty()) return it->second.queue.back().point;
  if (a.state == MoveState::moving && traits(a.behaviour.kind).takes_point &&
      a.behaviour.agent == kNoAgent)
    return a.behaviour.point;
  return a.position;
}

void OrderService::start(Agent& a, const Waypoint& w) {
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

void OrderService::forget(std::span<const Agent> agents, const std::vector<std::size_t>& indices) {
  if (orders_.empty()) return;
  for (std::size_t i : indices) orders_.erase(agents[i].id);
}

std::size_t OrderService::queued(AgentId id) const {
  const auto it = orders_.find(id);
  return it == orders_.end() ? 0 : it->second.queue.size();
}

std::vector<Vec2> OrderService::upcoming(AgentId id) const {
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

std::span<Vec2> OrderService::starts(std::size_t agents) {
  if (!any_given()) return {};
  starts_.resize(agents);
  return starts_;
}

// Serial, reading last tick's states: decisions are made first and applied after, so none depends
// on the order the agents are visited in.
void OrderService::decide(const Scene& scene, std::span<const std::uint8_t> hit_subject) {
  if (next_order_ == 1) return;  // no order was ever given: no agent has one (a scan saved)
  std::vector<Decision> decisions;
  for (std::size_t i = 0; i < scene.agents.size(); ++i)
    if (const std::optional<Decision> d = decision_for(scene, hit_subject, i))
      decisions.push_back(*d);
  for (const Decision& d : decisions) carry_out(scene, d);
  std::erase_if(orders_, [](const auto& entry) { return entry.second.empty(); });
}

std::optional<OrderService::Decision> OrderService::decision_for(
    const Scene& scene, std::span<const std::uint8_t> hit_subject, std::size_t i) const {
  const std::vector<Agent>& agents = scene.agents;
  const SpatialGrid& grid = scene.grid;
  const Agent& a = agents[i];
  if (a.order == 0) return std::nullopt;
  const Behaviour& b = a.behaviour;
  const auto it = orders_.find(a.id);
  const Orders* o = it == orders_.end() ? nullptr : &it->second;
  // Done with this order: the next queued one, or the patrol's next point.
  const bool done = a.state == MoveState::arrived ||
                    (b.kind == BehaviourKind::seek && length(b.point - a.position) <= a.def.radius);
  if (o && done && b.kind == BehaviourKind::patrol && !o->route.empty()) {
    return Decision{i, Decision::next_leg, {}};
  }
  if (o && done && !o->queue.empty() && b.kind != BehaviourKind::patrol &&
      !(b.kind == BehaviourKind::attack_move && b.phase == Phase::engage)) {
    return Decision{i, Decision::next_order, {}};
  }
  if (b.kind == BehaviourKind::attack_move) {
    const double sight = b.radius > 0 ? b.radius : kDefaultSight;
    if (b.phase == Phase::engage) {
      const Agent* enemy = subject_of(agents, a);
      const bool lost =
          !enemy || length_squared(enemy->position - a.position) > (1.5 * sight) * (1.5 * sight);
      // An armed attack-mover fights its enemy until it dies (or is lost); an unarmed one goes on
      // after the seeds' one body slam.
      if ((hit_subject[i] != 0 && !a.def.weapon.armed()) || lost)
        return Decision{i, Decision::disengage, {}};
      // An armed one chasing an enemy out of its reach turns on the nearest enemy within it, as
      // an RTS unit fights what it can hit: else chasers of chasers run off in a line.
      if (a.def.weapon.armed() && !in_reach(a, *enemy)) {
        AgentId nearer = kNoAgent;
        double best_gap = HUGE_VAL;
        const double reach = a.def.radius + a.def.weapon.range + scene.max_agent_radius +
                             kContactSlop * a.def.radius;
        grid.query_points(a.position, reach, [&](std::uint32_t j, Vec2, std::uint32_t) {
          const Agent& other = agents[j];
          if (j == i || !hostile(a, other) || !in_reach(a, other)) return;
          if (a.team != 0 && !scene.team_sight.empty() && (scene.team_sight[j] >> a.team & 1) == 0)
            return;
          const double gap = length(other.position - a.position) - other.def.radius;
          if (gap > best_gap || (gap == best_gap && other.id > nearer)) return;
          best_gap = gap;
          nearer = other.id;
        });
        if (nearer != kNoAgent) return Decision{i, Decision::engage, {}, nearer};
      }
      return std::nullopt;
    }
    AgentId nearest = kNoAgent;
    double best = sight * sight;
    grid.query_points(a.position, sight, [&](std::uint32_t j, Vec2 q, std::uint32_t) {
      const Agent& other = agents[j];
      if (j == i || !hostile(a, other)) return;
      // A team's attack-mover acquires what its team sees, as an RTS unit auto-acquires only
      // visible enemies: an enemy in the fog is not engaged however near.
      if (a.team != 0 && other.team != a.team && !scene.team_sight.empty() &&
          (scene.team_sight[j] >> a.team & 1) == 0)
        return;
      const double d2 = length_squared(q - a.position);
      if (d2 > best || (d2 == best && other.id > nearest)) return;
      if (o && std::find(o->engaged.begin(), o->engaged.end(), other.id) != o->engaged.end())
        return;
      best = d2;
      nearest = other.id;
    });
    if (nearest != kNoAgent) {
      return Decision{i, Decision::engage, {}, nearest};
    }
  }
  // Settled, but pushed off the spot it stopped at: it holds where it is now (braking to a
  // stop) rather than push its way back through those who settled round it.
  if (b.settle == Settle::settled && a.state == MoveState::moving) {
    if (b.point != a.position) return Decision{i, Decision::settle, a.position};
    return std::nullopt;
  }
  // Settling by contact: within braking distance of touching a stopped agent of its order.
  if ((b.settle != Settle::contact && b.settle != Settle::near && b.settle != Settle::gather) ||
      a.state != MoveState::moving)
    return std::nullopt;
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
    return Decision{i, Decision::settle, a.position};
  }
  const double reach = brake + kSettleGap * a.def.radius;
  const double look = a.def.radius + scene.max_agent_radius + reach;
  double gap = HUGE_VAL;
  grid.query_points(a.position, look, [&](std::uint32_t j, Vec2 q, std::uint32_t) {
    const Agent& other = agents[j];
    if (j == i || other.order != a.order) return;
    // Stopped: settled, arrived, or standing still in the press.
    if (other.behaviour.settle != Settle::settled && other.state != MoveState::arrived &&
        !held_up(other))
      return;
    if (only_ahead && !in_the_way(q - a.position, way)) return;
    gap = std::min(gap, length(q - a.position) - a.def.radius - other.def.radius);
  });
  if (gap > reach) return std::nullopt;
  // Stops where its braking takes it, short of touching.
  const double run = std::clamp(std::min(brake, gap - reach + brake), 0.0, brake);
  return Decision{i, Decision::settle, a.position + normalized_or_zero(a.velocity) * run};
}

void OrderService::carry_out(const Scene& scene, const Decision& d) {
  Agent& a = scene.agents[d.i];
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
      // An unarmed attack-mover slams an enemy once: it remembers it so as not to engage it
      // again. An armed one let go of an enemy it lost (it died, or got away): it may meet it
      // again.
      if (!a.def.weapon.armed()) {
        Orders& o = orders_[a.id];
        if (o.engaged.size() >= kMaxEngaged) o.engaged.erase(o.engaged.begin());
        o.engaged.push_back(b.agent);
      }
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
      start(a, w);
      break;
    }
  }
}

void OrderService::pace(const Scene& scene, std::span<const std::uint32_t> formed,
                        std::span<Desire> desires, std::vector<std::uint32_t>& tags) const {
  const std::vector<Agent>& agents = scene.agents;
  const SpatialGrid& grid = scene.grid;
  tags.clear();
  if (next_order_ == 1) return;  // no order was ever given: nobody settles or moves as a body
  bool keep = false, contact = false;
  for (const Agent& a : agents) {
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
    tags.assign(agents.size(), 0);
    std::copy(formed.begin(), formed.end(), tags.begin());
    for (std::size_t i = 0; i < agents.size(); ++i) {
      const Agent& a = agents[i];
      const Settle s = a.behaviour.settle;
      // Not one heading for another agent (an attack-move engaging): it must not avoid it.
      if (tags[i] != 0 || (scene.map && a.pathing != Pathing::direct) ||
          a.behaviour.agent != kNoAgent)
        continue;
      const std::uint32_t tag = (a.order & (kOrderTag - 1)) | kOrderTag;
      if (s == Settle::near)
        tags[i] = tag;
      else if ((s == Settle::gather || s == Settle::contact) && a.state == MoveState::moving)
        tags[i] = tag | FormationService::kReciprocal;  // those at rest stay put
    }
  }
  if (!contact) return;
  // Arrival by contact: a mover slows as arrive does, to stop a settling gap short of a stopped
  // agent of its order ahead of it, and queues behind a moving one (its speed along the way plus
  // what it can brake from in the gap), so that when the one ahead stops it stops too.
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const Agent& a = agents[i];
    if (a.behaviour.settle != Settle::contact || a.state != MoveState::moving) continue;
    Desire& d = desires[i];
    if (d.velocity == Vec2{}) continue;
    const double accel = a.def.max_force / a.def.mass;
    const double speed = length(d.velocity);
    const double settle_gap = kSettleGap * a.def.radius;
    const double look =
        a.def.radius + scene.max_agent_radius + settle_gap +
        std::max(speed, length(a.velocity)) * std::max(speed, length(a.velocity)) / (2 * accel) +
        speed * scene.def.dt;
    const Vec2 way = d.velocity * (1 / speed);
    double cap = HUGE_VAL;
    grid.query_points(a.position, look, [&](std::uint32_t j, Vec2 q, std::uint32_t) {
      const Agent& other = agents[j];
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
      cap = std::min(cap, ahead_speed + stopping_speed(std::max(0.0, gap - settle_gap / 2), accel,
                                                       scene.def.dt));
    });
    if (cap < speed) d.velocity = way * cap;
  }
}

void OrderService::keep_off_stopped(const Scene& scene, double& moved) {
  std::vector<Agent>& agents = scene.agents;
  SpatialGrid& grid = scene.grid;
  if (next_order_ == 1) return;  // no order was ever given
  // At rest under an order: arrived, still. Its place is final; to those still coming it is as
  // solid as an obstacle: one that would walk into it stops at its edge (arrival by contact) and
  // keeps only the part of its velocity along it, instead of shoving it off its spot as the
  // elastic response would.
  bool any = false;
  for (const Agent& a : agents) any = any || at_rest_in_order(a);
  if (!any) return;
  // Each mover's step, from where it started to where integration put it, is swept against the
  // discs of those at rest, which this pass never moves: no result depends on the order the
  // movers are visited in.
  double extra = 0;  // the farthest a mover ends from where integration put it
  std::vector<std::uint32_t> rest;
  for (std::size_t k = 0; k < grid.size(); ++k)
    extra = std::max(extra, sweep(scene, k, moved, rest));
  moved += extra;
}

double OrderService::sweep(const Scene& scene, std::size_t k, double moved,
                           std::vector<std::uint32_t>& rest) const {
  std::vector<Agent>& agents = scene.agents;
  SpatialGrid& grid = scene.grid;
  const std::size_t i = grid.index(k);
  Agent& a = agents[i];
  if (a.order == 0 || a.state != MoveState::moving || a.behaviour.agent != kNoAgent) return 0;
  const Vec2 from = starts_[i], to = a.position;
  if (from == to) return 0;
  rest.clear();
  const double look = a.def.radius + scene.max_agent_radius + moved + length(to - from) + kClear;
  grid.query_points(to, look, [&](std::uint32_t j, Vec2, std::uint32_t) {
    if (j != i && at_rest_in_order(agents[j])) rest.push_back(j);
  });
  if (rest.empty()) return 0;
  std::sort(rest.begin(), rest.end());
  // Already touching one (put there by last tick's pushes): no step further into it.
  Vec2 step = to - from;
  bool stuck = false;
  for (int round = 0; round < 2; ++round)
    for (std::uint32_t j : rest) {
      const Agent& b = agents[j];
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
    const Agent& b = agents[j];
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
  if (!hit && !stuck) return 0;
  a.position = from + step * first;
  if (hit) {
    const Vec2 n = normalized_or_zero(a.position - hit->position);
    const double vin = dot(a.velocity, n);
    if (vin < 0) a.velocity -= n * vin;
  }
  const double off = length(a.position - to);
  grid.move(k, a.position);
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
      const Vec2 to = agents[j].position - a.position;
      const double reach = a.def.radius + agents[j].def.radius + 2 * kClear;
      near = near || (length_squared(to) <= reach * reach && in_the_way(to, way));
    }
  }
  if (contact || near) {
    b.point = a.position;
    b.settle = Settle::settled;
    a.velocity = {};
  }
  return off;
}

// Format 9: orders (order_service.hpp).
template <CheckpointStream S>
bool OrderService::serialize(S& s, std::vector<Agent>& agents) {
  s.u32(next_order_);
  for (Agent& a : agents) {
    s.u32(a.order);
    s.enumeration(a.behaviour.settle, Settle::gather);
    s.check(a.order < next_order_);
  }
  auto waypoint = [&](Waypoint& p) {
    s.vec(p.point);
    s.enumeration(p.kind);
    s.enumeration(p.settle, Settle::gather);
    s.u32(p.order);
    s.f64(p.radius);
    s.items(p.route, 16, [&](Vec2& v) { s.vec(v); });
    s.check(std::isfinite(p.point.x) && std::isfinite(p.point.y) && std::isfinite(p.radius) &&
            p.route.size() < kMaxRoute && p.order < next_order_);
  };
  std::vector<std::pair<AgentId, Orders>> entries;
  if constexpr (!S::kLoading) entries.assign(orders_.begin(), orders_.end());
  s.items(entries, 40, [&](std::pair<AgentId, Orders>& e) {
    s.u32(e.first);
    Orders& o = e.second;
    s.items(o.queue, 40, waypoint);
    s.items(o.route, 16, [&](Vec2& v) { s.vec(v); });
    s.u32(o.leg);
    s.enumeration(o.route_settle, Settle::gather);
    s.items(o.engaged, 4, [&](AgentId& id) { s.u32(id); });
    s.check(o.queue.size() <= kMaxQueue && o.route.size() <= kMaxRoute &&
            (o.route.empty() || o.leg < o.route.size()) && o.engaged.size() <= kMaxEngaged);
  });
  if constexpr (S::kLoading) {
    orders_.clear();
    for (auto& e : entries) orders_.emplace(e.first, std::move(e.second));
  }
  return s.ok();
}

template bool OrderService::serialize(Save&, std::vector<Agent>&);
template bool OrderService::serialize(Load&, std::vector<Agent>&);

}  // namespace herd::sim
