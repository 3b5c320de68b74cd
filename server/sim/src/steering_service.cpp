// The steering's part (steering_service.hpp): wander, flock, follow_path and follow, whose steering
// keeps state between ticks, by agent id, and queueing. Each call reads the world only through
// what the step hands it.
#include "steering_service.hpp"

#include <algorithm>
#include <cmath>

#include "agent_index.hpp"
#include "behaviour.hpp"
#include "formation_service.hpp"
#include "steering.hpp"

namespace herd::sim {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Defaults, in the agent's own radius r, so that one command suits worlds in pixels and in metres.
constexpr double kWanderRadius = 3;       // r
constexpr double kWanderDistance = 6;     // r ahead
constexpr double kWanderJitter = 30;      // r per second
constexpr double kFlockRadius = 15;       // r
constexpr double kDisorderedSpeed = 0.3;  // of max speed: a flock whose headings cancel out
constexpr double kSeparationRange = 3;    // sums of radii: flockmates nearer than this push apart
constexpr double kFollowGap = 1;          // r between the leader and its followers' first row
constexpr double kFollowSpacing = 3;      // r between followers' places
constexpr double kPathLookahead = 0.5;    // s: where the agent will be, projected onto the path
// A leader slower than this share of its top speed is standing: its followers keep the heading
// it had and arrive at their places.
constexpr double kLeaderStill = 0.02;

// The agent's heading: its velocity's direction, or the one it had last when it stands.
Vec2 heading_of(const Agent& a, Vec2 last) {
  const double speed = length(a.velocity);
  return speed > 1e-9 * std::max(a.def.max_speed, 1e-300) ? a.velocity * (1.0 / speed) : last;
}

// The most an agent turns its heading in one tick: its acceleration over its speed.
double max_turn(const Agent& a, double dt) {
  const double accel = a.def.max_force / a.def.mass;
  const double speed = length(a.velocity);
  return speed * kPi <= accel * dt ? kPi : accel * dt / speed;
}

// Away from the world's edges, growing from 0 a margin away to 1 at the edge (per axis): a flock
// or a wanderer turns before the edge instead of sliding along it.
Vec2 inward(Vec2 p, double margin, double width, double height) {
  if (margin <= 0) return {};
  const auto push = [margin](double d) { return d < margin ? 1 - std::max(d, 0.0) / margin : 0; };
  return {push(p.x) - push(width - p.x), push(p.y) - push(height - p.y)};
}

Vec2 unit_at(double angle) { return {std::cos(angle), std::sin(angle)}; }

// The agent a behaviour heads for, while it is there.
const Agent* subject_of(std::span<const Agent> agents, const Agent& a) {
  if (a.behaviour.agent == kNoAgent) return nullptr;
  const std::size_t j = index_of(agents, a.behaviour.agent);
  return j < agents.size() ? &agents[j] : nullptr;
}

// Reynolds' queueing, as a driver follows the car ahead: an agent keeps a gap to the nearest
// agent ahead in its lane (whose disc its way would meet) that it can close at that one's
// speed along the way plus the gap over the headway, and never faster than it could stop in.
constexpr double kHeadway = 0.5;      // s
constexpr double kMargin = 0.25;      // radii: the gap it keeps at a standstill
constexpr double kStillShare = 0.05;  // of max speed: slower than this, one stands still

// Wander (Reynolds): a point on a circle ahead, jittered each tick from the agent's own stream.
Desire wander_desire(const SteeringService::Scene& scene, const Agent& a,
                     SteeringService::Steering& st) {
  const Behaviour& b = a.behaviour;
  const double dt = scene.def.dt;
  const double r = a.def.radius;
  const Vec2 heading = heading_of(a, st.heading);
  st.heading = heading;
  const double radius = b.radius > 0 ? b.radius : kWanderRadius * r;
  const double distance = st.params.distance > 0 ? st.params.distance : kWanderDistance * r;
  const double jitter = st.params.jitter > 0 ? st.params.jitter : kWanderJitter * r;
  Rng rng(st.key ^ (scene.tick + 1) * 0xD1B54A32D192ED03ull);
  const double u1 = rng.next_unit(), u2 = rng.next_unit();
  st.wander = wander_jitter(st.wander, radius, jitter * dt, u1, u2);
  const Vec2 ahead = follow_point(a.position, heading, {distance + st.wander.x, st.wander.y});
  Vec2 dir = normalized_or_zero(
      normalized_or_zero(ahead - a.position) +
      inward(a.position, distance + radius, scene.def.width, scene.def.height) * 2.0);
  if (dir == Vec2{}) dir = heading;
  return {turn_at_most(heading, dir, max_turn(a, dt)) * a.def.max_speed, std::nullopt, false};
}

// Flock (Reynolds' boids): separation, alignment and cohesion among its group's members near it.
// Flockmates heeded at most: the nearest, as starlings heed their six or seven nearest whatever the
// flock's density (Ballerini et al. 2008); a crowd of one group holds more than this within the
// default radius only when packed tighter than separation keeps a flock.
constexpr std::size_t kMaxFlockmates = 64;
// Agents of any group the search for flockmates reads before it stops widening: what keeps a
// huge radius from making every flocker read the whole world every tick.
constexpr std::size_t kMaxFlockLook = 128;

struct Flockmate {
  Vec2 position;  // as the grid holds it
  double d2;
  std::uint32_t slot;
  std::uint32_t index;
};

// Agent i's flockmates, in grid-slot order: the agents of its group (and team) within `radius`,
// or, of more than kMaxFlockmates, the nearest (equal distances by index). The search starts at
// the default radius and doubles up to `radius` while it has fewer than that and has read fewer
// than kMaxFlockLook agents. The order is the grid's, as a single query at `radius` gives it, so
// a flock with fewer mates than the cap steers bit for bit as when every one in the radius was
// read.
void find_flockmates(const SteeringService::Scene& scene, std::size_t i, const Agent& a,
                     double radius, std::vector<Flockmate>& out) {
  const std::span<const Agent> agents = scene.agents;
  for (double reach = std::min(radius, kFlockRadius * a.def.radius);;
       reach = std::min(radius, 2 * reach)) {
    out.clear();
    std::size_t read = 0;
    scene.nearby.grid.query_points(a.position, reach, [&](std::size_t j, Vec2 p, std::size_t slot) {
      ++read;
      if (j == i || agents[j].group != a.group || agents[j].team != a.team) return;
      const double d2 = length_squared(a.position - p);
      if (d2 > reach * reach) return;
      out.push_back({p, d2, static_cast<std::uint32_t>(slot), static_cast<std::uint32_t>(j)});
    });
    if (out.size() >= kMaxFlockmates || reach >= radius || read >= kMaxFlockLook) break;
  }
  if (out.size() <= kMaxFlockmates) return;
  const auto nearer = [](const Flockmate& x, const Flockmate& y) {
    return x.d2 < y.d2 || (x.d2 == y.d2 && x.index < y.index);
  };
  std::nth_element(out.begin(), out.begin() + kMaxFlockmates - 1, out.end(), nearer);
  out.resize(kMaxFlockmates);
  std::sort(out.begin(), out.end(),
            [](const Flockmate& x, const Flockmate& y) { return x.slot < y.slot; });
}

Desire flock_desire(const SteeringService::Scene& scene, std::size_t i, const Agent& a,
                    SteeringService::Steering& st) {
  const Behaviour& b = a.behaviour;
  const double dt = scene.def.dt;
  const double r = a.def.radius;
  const Vec2 heading = heading_of(a, st.heading);
  st.heading = heading;
  const double radius = b.radius > 0 ? b.radius : kFlockRadius * r;
  thread_local std::vector<Flockmate> mates;
  find_flockmates(scene, i, a, radius, mates);
  FlockView view;
  for (const Flockmate& m : mates) {
    const Vec2 p = m.position;
    const Vec2 away = a.position - p;
    ++view.count;
    view.position_sum += p;
    view.velocity_sum += scene.nearby.slots[m.slot].velocity;
    view.heading_sum += normalized_or_zero(scene.nearby.slots[m.slot].velocity);
    const double near = kSeparationRange * (r + scene.nearby.slots[m.slot].radius);
    if (m.d2 < near * near && m.d2 > 0) {
      const double d = std::sqrt(m.d2);
      view.separation += away * ((near / d) * (near / d) - 1) * (1.0 / d);
    }
  }
  const Vec2* target = st.params.has_target ? &b.point : nullptr;
  // The world's edges turn it from the default radius away at most: a radius as wide as the
  // world would have every flocker pulled to the middle, the whole crowd in a heap.
  const double edge_margin = std::min(radius, kFlockRadius * r);
  Vec2 dir =
      flock_direction(a.position, heading, view, radius, st.params.separation, st.params.alignment,
                      st.params.cohesion, target,
                      inward(a.position, edge_margin, scene.def.width, scene.def.height) * 2.0);
  if (dir == Vec2{}) dir = heading;
  // A flock in disorder (headings every way, as from random ones) moves slowly, so its members
  // can dodge one another while they line up; an aligned one at full speed.
  const double order =
      view.count == 0 ? 1 : length(view.heading_sum) / static_cast<double>(view.count);
  const double speed = a.def.max_speed * (kDisorderedSpeed + (1 - kDisorderedSpeed) * order);
  return {turn_at_most(heading, dir, max_turn(a, dt)) * speed,
          target ? std::optional<Vec2>(*target) : std::nullopt, false};
}

// Follow a path (Reynolds): predict, project onto the path, seek a point ahead along it.
Desire follow_path_desire(const SteeringService::Scene& scene, const Agent& a,
                          SteeringService::Steering& st) {
  const Behaviour& b = a.behaviour;
  const double dt = scene.def.dt;
  const double r = a.def.radius;
  const double accel = a.def.max_force / a.def.mass;
  const std::vector<Vec2>& path = *st.path;
  const std::size_t n = path.size();
  const std::size_t legs = st.params.loop ? n : n - 1;
  const double radius = b.radius > 0 ? b.radius : 2 * r;
  const auto start = [&](std::size_t leg) { return path[leg % n]; };
  const auto end = [&](std::size_t leg) { return path[(leg + 1) % n]; };
  // The next leg once it is within half the radius of this one's end (or past it): every
  // point is visited, in order.
  for (int guard = 0; guard < 2 && !st.finished; ++guard) {
    const PathProjection on = project_on_segment(a.position, start(st.leg), end(st.leg));
    const bool reached = length(end(st.leg) - a.position) <= std::max(radius / 2, r) ||
                         (on.t >= 1 && on.distance2 <= radius * radius);
    if (!reached) break;
    if (!st.params.loop && st.leg + 1 == legs) {
      st.finished = true;
    } else {
      st.leg = static_cast<std::uint32_t>((st.leg + 1) % legs);
    }
  }
  const Vec2 to = end(st.leg);
  if (st.finished) return {arrive_desired_velocity(a.position, to, a.def, dt), to, true};
  // Reynolds: predict, project onto the path, seek a point ahead along it (never past the
  // leg's end), at a speed from which it can still turn at the end within the radius.
  const Vec2 from = start(st.leg);
  const Vec2 along = normalized_or_zero(to - from);
  const Vec2 predicted = a.position + clamp_length(a.velocity * kPathLookahead, radius);
  const PathProjection on = project_on_segment(predicted, from, to);
  const double left = length(to - on.point);
  const Vec2 carrot = on.point + along * std::min(radius, left);
  double corner = a.def.max_speed;  // the speed it may take round the leg's end
  const bool last = !st.params.loop && st.leg + 1 == legs;
  if (last) {
    corner = 0;
  } else {
    const Vec2 next = normalized_or_zero(end(st.leg + 1) - to);
    if (dot(along, next) < 0.995) corner = std::sqrt(accel * radius / 2);
  }
  const double to_end = length(to - a.position);
  const double speed =
      std::min(a.def.max_speed,
               approach_speed(std::max(0.0, to_end - std::max(radius / 2, r)), corner, accel));
  const Vec2 dir = normalized_or_zero(carrot - a.position);
  return {dir * speed, to, false};
}

// Follow a leader: its place beside the leader, at the leader's velocity.
Desire follow_desire(const SteeringService::Scene& scene, const Agent& a,
                     SteeringService::Steering& st) {
  const std::span<const Agent> agents = scene.agents;
  const double dt = scene.def.dt;
  const double accel = a.def.max_force / a.def.mass;
  const Agent* leader = subject_of(agents, a);
  if (!leader) return {};
  const double leader_speed = length(leader->velocity);
  const bool moving = leader_speed > kLeaderStill * std::max(leader->def.max_speed, 1e-300);
  if (moving) st.heading = leader->velocity * (1.0 / leader_speed);
  const Vec2 place = follow_point(leader->position, st.heading, st.params.offset);
  // Its place moves with the leader: match the leader's velocity and arrive at the place in
  // the leader's frame, so it neither lags nor overshoots when the leader stops.
  Vec2 velocity = clamp_length(
      (moving ? leader->velocity : Vec2{}) + arrive_desired_velocity(a.position, place, a.def, dt),
      a.def.max_speed);
  // A leader arriving at a point stops there: its follower brakes for its own place beside
  // that point by itself, rather than a tick behind the leader's braking (which, at the same
  // deceleration, would carry it past its place).
  const BehaviourKind lk = leader->behaviour.kind;
  if (moving && leader->behaviour.agent == kNoAgent &&
      (lk == BehaviourKind::arrive || lk == BehaviourKind::hold || lk == BehaviourKind::queue)) {
    const Vec2 last = follow_point(leader->behaviour.point, st.heading, st.params.offset);
    velocity = clamp_length(velocity, stopping_speed(length(last - a.position), accel, dt));
  }
  return {velocity, place, !moving};
}

}  // namespace

void SteeringService::start(const SetBehaviour& cmd, std::span<const Agent> agents,
                            const std::vector<std::size_t>& indices, Rng& rng) {
  const BehaviourKind kind = cmd.behaviour.kind;
  if (!has_steering_state(kind)) return;
  std::shared_ptr<const std::vector<Vec2>> path;
  if (kind == BehaviourKind::follow_path)
    path = std::make_shared<const std::vector<Vec2>>(cmd.params.path);
  // Each agent's parameters without the points, which all share in `path` (a copy cleared would
  // keep its memory: 1,024 points on 20,000 agents were 327 MB).
  BehaviourParams params = cmd.params;
  params.path = {};
  // Followers' places: one at the offset, several in a block behind the leader, the nearest to
  // it in front, each row centred on the offset's line.
  std::vector<Vec2> places(indices.size());
  Vec2 leader_heading{1, 0};
  if (kind == BehaviourKind::follow) {
    const Agent& leader = agents[index_of(agents, cmd.behaviour.agent)];
    leader_heading = heading_of(leader, leader_heading);
    double r = 0;
    for (std::size_t i : indices) r = std::max(r, agents[i].def.radius);
    const double spacing = kFollowSpacing * r;
    const Vec2 base = cmd.params.has_offset ? cmd.params.offset
                                            : Vec2{-(leader.def.radius + kFollowGap * r + r), 0};
    // By where each is now in the leader's frame: ahead first, then from left to right.
    const Vec2 right{-leader_heading.y, leader_heading.x};
    std::vector<std::size_t> order(indices.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    const auto local = [&](std::size_t k) {
      const Vec2 d = agents[indices[k]].position - leader.position;
      return Vec2{dot(d, leader_heading), dot(d, right)};
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      const Vec2 a = local(x), b = local(y);
      return a.x != b.x ? a.x > b.x : a.y < b.y;
    });
    const auto n = indices.size();
    const auto columns =
        static_cast<std::size_t>(std::ceil(std::sqrt(static_cast<double>(n)) - 1e-9));
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t row = k / columns, column = k % columns;
      const std::size_t in_row = std::min(columns, n - row * columns);
      places[order[k]] =
          base +
          Vec2{-static_cast<double>(row) * spacing,
               (static_cast<double>(column) - static_cast<double>(in_row - 1) / 2) * spacing};
    }
  }
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const Agent& a = agents[indices[k]];
    Steering st;
    st.kind = kind;
    st.params = params;
    st.path = path;
    if (kind == BehaviourKind::wander || kind == BehaviourKind::flock) {
      // A heading of its own for one standing still (flocks from random headings), and for a
      // wanderer its stream of jitter and where on its circle it starts.
      st.key = rng.next_u64();
      st.heading = heading_of(a, unit_at(rng.uniform(0, 2 * kPi)));
      if (kind == BehaviourKind::wander)
        st.wander =
            unit_at(rng.uniform(0, 2 * kPi)) *
            (cmd.behaviour.radius > 0 ? cmd.behaviour.radius : kWanderRadius * a.def.radius);
    } else if (kind == BehaviourKind::follow) {
      st.heading = leader_heading;
      st.params.offset = places[k];
      st.params.has_offset = true;
    }
    steering_[a.id] = std::move(st);
  }
}

void SteeringService::forget(std::span<const Agent> agents,
                             const std::vector<std::size_t>& indices) {
  if (!steering_.empty())
    for (std::size_t i : indices) steering_.erase(agents[i].id);
}

void SteeringService::prune(std::span<const Agent> agents) {
  if (!stale_) return;
  stale_ = false;
  std::erase_if(steering_, [agents](const auto& entry) {
    const std::size_t i = index_of(agents, entry.first);
    return i == agents.size() || agents[i].behaviour.kind != entry.second.kind;
  });
}

Desire SteeringService::desire(const Scene& scene, std::size_t i) {
  const Agent& a = scene.agents[i];
  const auto it = steering_.find(a.id);
  if (it == steering_.end() || it->second.kind != a.behaviour.kind) return {};
  Steering& st = it->second;
  switch (a.behaviour.kind) {
    case BehaviourKind::wander:
      return wander_desire(scene, a, st);
    case BehaviourKind::flock:
      return flock_desire(scene, i, a, st);
    case BehaviourKind::follow_path:
      return follow_path_desire(scene, a, st);
    case BehaviourKind::follow:
      return follow_desire(scene, a, st);
    default:
      return {};
  }
}

void SteeringService::tag(std::span<const Agent> agents, std::span<const std::uint32_t> formed,
                          std::vector<std::uint32_t>& tags) const {
  // Every flocker and follower has steering state: a world without any skips the scan.
  if (steering_.empty() || std::none_of(agents.begin(), agents.end(), [](const Agent& a) {
        return a.behaviour.kind == BehaviourKind::flock ||
               a.behaviour.kind == BehaviourKind::follow;
      }))
    return;
  if (tags.empty()) {
    tags.assign(agents.size(), 0);
    std::copy(formed.begin(), formed.end(), tags.begin());
  }
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const Agent& a = agents[i];
    if (tags[i] != 0) continue;
    if (a.behaviour.kind == BehaviourKind::flock)
      tags[i] = FormationService::kReciprocal | kFlockTag | a.group;
    else if (a.behaviour.kind == BehaviourKind::follow)  // by leader
      tags[i] = FormationService::kReciprocal | kFollowTag | (a.behaviour.agent & (kFollowTag - 1));
  }
}

bool SteeringService::begin_queues(std::span<const Agent> agents) {
  if (std::none_of(agents.begin(), agents.end(),
                   [](const Agent& a) { return a.behaviour.kind == BehaviourKind::queue; }))
    return false;
  // Each queuer's way after pathing, before any braking, by agent index: two that each have the
  // other in their way (side by side into a door, head on) are found from both sides alike, and
  // the lower id goes on while the other waits, so they never both wait.
  queue_ways_.assign(agents.size(), Vec2{});
  return true;
}

void SteeringService::brake(const Scene& scene, std::size_t i, Desire& d) const {
  const std::span<const Agent> agents = scene.agents;
  const auto in_way = [](Vec2 from, Vec2 way, Vec2 to, double touch, double& ahead,
                         double& lateral) {
    const Vec2 rel = to - from;
    ahead = dot(rel, way);
    lateral = std::abs(rel.x * way.y - rel.y * way.x);
    return ahead > 0 && lateral < touch;
  };
  const double reach = scene.nearby.max_agent_radius;
  const Agent& a = agents[i];
  const Vec2 dir = queue_ways_[i];
  if (dir == Vec2{}) return;
  const double want = length(d.velocity);
  const double accel = a.def.max_force / a.def.mass;
  const double r = a.def.radius;
  const double look = 2 * (r + reach) + want * kHeadway;
  double speed = want;
  const double still2 = (kStillShare * a.def.max_speed) * (kStillShare * a.def.max_speed);
  scene.nearby.grid.query_points(
      a.position + dir * (look / 2), look / 2 + reach,
      [&](std::size_t j, Vec2 p, std::size_t slot) {
        if (j == i) return;
        const double touch = r + scene.nearby.slots[slot].radius;
        double ahead = 0, lateral = 0;
        if (!in_way(a.position, dir, p, touch, ahead, lateral)) return;
        // The lower id goes on past one that waits for it, and past one standing still: every
        // cycle of waiting agents has a lower id waiting for a higher one, so none is closed.
        double their_ahead = 0, their_lateral = 0;
        if (a.id < agents[j].id &&
            ((queue_ways_[j] != Vec2{} &&
              in_way(p, queue_ways_[j], a.position, touch, their_ahead, their_lateral)) ||
             length_squared(scene.nearby.slots[slot].velocity) < still2))
          return;
        const double its = std::max(0.0, dot(scene.nearby.slots[slot].velocity, dir));
        if (its >= speed) return;
        const double gap = std::max(
            0.0, ahead - std::sqrt(std::max(0.0, touch * touch - lateral * lateral)) - kMargin * r);
        speed = std::min({speed, its + gap / kHeadway, stopping_speed(gap, accel, scene.def.dt)});
      });
  if (speed < want) d.velocity = dir * speed;
}

// Format 11: what wander, flock, follow_path and follow keep between ticks (steering_service.hpp).
// Format 16 writes each follow_path path once, in a table before the entries, which name theirs
// by number (from 1; 0: none), and loads one path for all of them, as one command made it; format
// 11 to 15 entries hold a copy each (one command's 1,024 points on 20,000 agents: 335 MB).
template <CheckpointStream S>
bool SteeringService::serialize(S& s) {
  s.boolean(stale_);
  using Path = std::shared_ptr<const std::vector<Vec2>>;
  std::vector<Path> table;
  std::map<const std::vector<Vec2>*, std::uint32_t> numbers;  // saving: each path's number
  Path last_read;                                             // loading formats 11 to 15
  if (s.version() >= 16) serialize_path_table(s, table, numbers);
  std::vector<std::pair<AgentId, Steering>> entries;
  if constexpr (!S::kLoading) entries.assign(steering_.begin(), steering_.end());
  s.items(entries, s.version() >= 16 ? 96 : 100, [&](std::pair<AgentId, Steering>& e) {
    s.u32(e.first);
    Steering& st = e.second;
    s.enumeration(st.kind);
    BehaviourParams& p = st.params;
    s.f64(p.distance);
    s.f64(p.jitter);
    s.f64(p.separation);
    s.f64(p.alignment);
    s.f64(p.cohesion);
    s.boolean(p.has_target);
    s.boolean(p.loop);
    s.boolean(p.has_offset);
    s.vec(p.offset);
    if (s.version() >= 16) {
      std::uint32_t number = 0;
      if constexpr (!S::kLoading)
        if (st.path) number = numbers.at(st.path.get());
      s.u32(number);
      s.check(number <= table.size());
      if constexpr (S::kLoading)
        st.path = number > 0 && number <= table.size() ? table[number - 1] : nullptr;
    } else {
      std::vector<Vec2> path;
      if constexpr (!S::kLoading)
        if (st.path) path = *st.path;
      s.items(path, 16, [&](Vec2& v) { s.vec(v); });
      s.check(path.size() <= BehaviourLimits::kMaxPathPoints);
      // One command's agents are neighbours by id: a path equal to the last one read is shared.
      if constexpr (S::kLoading)
        if (!path.empty() && s.ok())
          st.path = last_read && *last_read == path
                        ? last_read
                        : std::make_shared<const std::vector<Vec2>>(std::move(path));
      if constexpr (S::kLoading) last_read = st.path ? st.path : last_read;
    }
    s.u64(st.key);
    s.vec(st.wander);
    s.vec(st.heading);
    s.u32(st.leg);
    s.boolean(st.finished);
    const bool needs_path = st.kind == BehaviourKind::follow_path;
    const std::size_t points = st.path ? st.path->size() : 0;
    s.check(has_steering_state(st.kind) && (needs_path ? points >= 2 : points == 0) &&
            (!needs_path || st.leg < points) && std::isfinite(p.distance) &&
            std::isfinite(p.jitter) && std::isfinite(p.separation) && std::isfinite(p.alignment) &&
            std::isfinite(p.cohesion) && std::isfinite(p.offset.x) && std::isfinite(p.offset.y));
  });
  if constexpr (S::kLoading) {
    steering_.clear();
    for (auto& e : entries) steering_.emplace(e.first, std::move(e.second));
  }
  return s.ok();
}

// Format 16's table of the follow_path paths the entries share: saving, each distinct path once,
// in the order of the first agent (by id) that follows it.
template <CheckpointStream S>
void SteeringService::serialize_path_table(
    S& s, std::vector<std::shared_ptr<const std::vector<Vec2>>>& table,
    std::map<const std::vector<Vec2>*, std::uint32_t>& numbers) {
  std::vector<std::vector<Vec2>> paths;
  if constexpr (!S::kLoading)
    for (const auto& [id, st] : steering_)
      if (st.path &&
          numbers.emplace(st.path.get(), static_cast<std::uint32_t>(table.size() + 1)).second) {
        table.push_back(st.path);
        paths.push_back(*st.path);
      }
  s.items(paths, 8 + 2 * 16, [&](std::vector<Vec2>& path) {
    s.items(path, 16, [&](Vec2& v) { s.vec(v); });
    s.check(path.size() >= 2 && path.size() <= BehaviourLimits::kMaxPathPoints);
  });
  if constexpr (S::kLoading)
    for (std::vector<Vec2>& path : paths)
      table.push_back(std::make_shared<const std::vector<Vec2>>(std::move(path)));
}

template bool SteeringService::serialize(Save&);
template bool SteeringService::serialize(Load&);

}  // namespace herd::sim
