// The World's collision stage (collisions as in "Accidents Do Happen"): detect touching circles
// through the grid, answer with the elastic response computed for every pair before any is applied
// (the write-up's "return the new vector to change after all collisions have been detected"), then
// remove what overlap is left so agents never stay inside each other or inside obstacles.
#include <algorithm>
#include <cmath>

#include "world_impl.hpp"

namespace herd::sim {
namespace {

// The unit normal from b to a; coincident centres get a fixed axis, deterministic by id order.
Vec2 separation_normal(const Agent& a, const Agent& b) {
  const Vec2 n = normalized_or_zero(a.position - b.position);
  if (n != Vec2{}) return n;
  return a.id < b.id ? Vec2{-1, 0} : Vec2{1, 0};
}

// No-backtracking walkers move on rails: to everyone else they are as immovable as an obstacle.
bool immovable(const Agent& a, bool has_map) {
  return has_map && a.pathing == Pathing::no_backtrack;
}

// Come to rest under a group order, against one still moving under an order: its place is
// final, and the mover takes the whole response (OrderService::keep_off_stopped).
bool holds_against(const Agent& a, const Agent& b) {
  return OrderService::at_rest_in_order(a) && b.order != 0 && !OrderService::at_rest_in_order(b);
}

// The more important of two (AgentDef::priority: the lower number) keeps its way through the less
// important: to it, it is as immovable as a wall, and the other is pushed aside (below: at the
// speed it is run into, not bounced off at twice it). Equal priorities (every agent by default)
// are two bodies of their masses.
bool outranks(const Agent& a, const Agent& b) { return a.def.priority < b.def.priority; }

// Shares of a pair's response: (2 m_b/(m_a+m_b), 2 m_a/(m_a+m_b)) for the elastic velocity change
// and half that for overlap removal; an immovable side takes nothing and the other everything.
std::pair<double, double> mass_shares(const Agent& a, const Agent& b, bool has_map) {
  const bool fixed_a = immovable(a, has_map) || holds_against(a, b) || outranks(a, b),
             fixed_b = immovable(b, has_map) || holds_against(b, a) || outranks(b, a);
  if (fixed_a && fixed_b) return {0, 0};
  if (fixed_a) return {0, 1};
  if (fixed_b) return {1, 0};
  const double total = a.def.mass + b.def.mass;
  return {b.def.mass / total, a.def.mass / total};
}

std::uint64_t agent_pair_key(AgentId a, AgentId b) { return (std::uint64_t{a} << 32) | b; }
std::uint64_t obstacle_pair_key(AgentId a, ObstacleId o) {
  return (std::uint64_t{a} << 32) | o | (1ull << 63);
}

}  // namespace

void WorldImpl::stage_collisions() {
  contacts_.events.clear();
  std::fill(contacts_.hit_subject.begin(), contacts_.hit_subject.end(), 0);
  if (agents_.empty()) return;

  // Step 1 (detection), each pair once, in a deterministic order.
  for (Scratch& scratch : runner_.scratch) scratch.pairs.clear();
  // In grid order, so that consecutive queries read neighbouring memory; the sort below gives the
  // pairs one order whatever the visiting order and the worker.
  for_each_agent(neighbours_.grid.size(), [this](std::size_t k, Scratch& scratch) {
    // All by grid slot: positions from the grid (stage_integrate kept them up to date, not its
    // cells), radii from the avoidance stage's slot data. No agent record is read: in grid order
    // the slots near k are near in memory, the records are not.
    const std::uint32_t i = neighbours_.grid.index(k);
    const double radius = neighbours_.slots[k].radius;
    const double reach = radius + neighbours_.max_agent_radius;
    // No pair without this agent moving into touch: at the start of the step no other centre was
    // nearer than its clearance, and since then each moved at most neighbours_.moved (the margin
    // covers rounding). Most agents of a crowd with room between them skip the search.
    const double apart = (reach + 2 * neighbours_.moved) * (1 + 1e-9) + 1e-9;
    if (neighbours_.clearance2[k] > apart * apart) return;  // by slot (stage_avoidance)
    const Vec2 at = neighbours_.grid.position(k);
    auto& pairs = scratch.pairs;
    scan::Candidates& near = scratch.found;  // the avoidance stage's, spent by now
    neighbours_.grid.query_runs(
        at, reach + neighbours_.moved, [&](std::uint32_t begin, std::uint32_t end) {
          near.reserve(end - begin);
          const std::size_t m = scan::kernels().filter(
              neighbours_.grid.xs(), neighbours_.grid.ys(), neighbours_.grid.items(), begin, end,
              at.x, at.y, reach * reach, HUGE_VAL, i, i, near.d2.data(), near.slot.data(),
              near.index.data(), nullptr);
          std::size_t n = pairs.size();
          pairs.resize(n + m);
          for (std::size_t q = 0; q < m; ++q) {  // circles_touch, as a compaction without a branch
            const std::uint32_t j = near.index[q];
            const double touch = radius + neighbours_.slots[near.slot[q]].radius;
            pairs[n] = {i, j};
            n += static_cast<std::size_t>((j > i) & (near.d2[q] <= touch * touch));
          }
          pairs.resize(n);
        });
  });
  // Whichever worker found a pair, the sort gives one order.
  contacts_.pairs.clear();
  for (const Scratch& scratch : runner_.scratch)
    contacts_.pairs.insert(contacts_.pairs.end(), scratch.pairs.begin(), scratch.pairs.end());
  std::sort(contacts_.pairs.begin(), contacts_.pairs.end());

  // Steps 2 and 3: points and elastic responses, computed into scratch and then committed.
  // Per-agent changes accumulate in the avoidance stage's slot data, spent by now: indexed here by
  // agent, not by slot (16 bytes per agent saved).
  neighbours_.slots.resize(agents_.size());
  auto delta = [this](std::size_t i) -> Vec2& { return neighbours_.slots[i].velocity; };
  for_each_agent(neighbours_.slots.size(),
                 [&](std::size_t i, Scratch&) { neighbours_.slots[i].velocity = {}; });
  contacts_.touching_next.clear();
  auto begins = [this](std::uint64_t key) {
    contacts_.touching_next.push_back(key);
    return !std::binary_search(contacts_.touching.begin(), contacts_.touching.end(), key);
  };
  for (const auto& [i, j] : contacts_.pairs) {
    Agent& a = agents_[i];
    Agent& b = agents_[j];
    if (a.behaviour.agent == b.id) contacts_.hit_subject[i] = 1;
    if (b.behaviour.agent == a.id) contacts_.hit_subject[j] = 1;
    const bool new_contact = begins(agent_pair_key(a.id, b.id));
    // The elastic response (collision.hpp, step 3) with equal masses gives -(relative
    // velocity along the centres) to each; the shares scale it by the masses
    // (2 m_b/(m_a+m_b) = 2 * share_a).
    const auto [share_a, share_b] = mass_shares(a, b, map_.has_value());
    // A pair of two priorities is a push, not a bounce: the less important takes the approach
    // speed away (half the elastic change), so it moves aside with the other, not flung off.
    const double bounce = a.def.priority == b.def.priority ? 2.0 : 1.0;
    const Vec2 dva = elastic_velocity_change(a.position, a.velocity, 1, b.position, b.velocity, 1) *
                     (bounce * share_a);
    const Vec2 dvb = elastic_velocity_change(b.position, b.velocity, 1, a.position, a.velocity, 1) *
                     (bounce * share_b);
    if (dva == Vec2{} && dvb == Vec2{}) continue;  // touching but already separating
    delta(i) += dva;
    delta(j) += dvb;
    if (!new_contact) continue;
    a.collided = b.collided = true;
    contacts_.events.push_back({a.id, b.id, false,
                                collision_point(a.position, a.def.radius, b.position, b.def.radius),
                                length(dva) * a.def.mass});
  }
  // The loops over every agent run on the workers: each touches one agent (at 100,000 agents,
  // serial, they were a tenth of a two-thread step).
  for_each_agent(agents_.size(), [&](std::size_t i, Scratch&) { agents_[i].velocity += delta(i); });

  // Overlap left after the response: pushed apart in proportion to the other's mass, a few
  // Jacobi passes over the same pairs.
  for (int pass = 0; pass < def_.position_iterations; ++pass) {
    for_each_agent(neighbours_.slots.size(),
                   [&](std::size_t i, Scratch&) { neighbours_.slots[i].velocity = {}; });
    bool any = false;
    for (const auto& [i, j] : contacts_.pairs) {
      const Agent& a = agents_[i];
      const Agent& b = agents_[j];
      const double overlap = a.def.radius + b.def.radius - length(a.position - b.position);
      if (overlap <= 0) continue;
      any = true;
      const Vec2 n = separation_normal(a, b);
      const auto [share_a, share_b] = mass_shares(a, b, map_.has_value());
      delta(i) += n * (overlap * share_a);
      delta(j) -= n * (overlap * share_b);
    }
    if (!any) break;
    for_each_agent(agents_.size(),
                   [&](std::size_t i, Scratch&) { agents_[i].position += delta(i); });
  }

  // Static obstacles do not move: the agent bounces off and is put back outside.
  if (!obstacles_.items.empty()) {
    for (Agent& a : agents_) {
      neighbours_.obstacle_index.query_within(a.position, a.def.radius, [&](std::uint32_t k) {
        const Obstacle& o = obstacles_.items[k];
        if (!circles_touch(a.position, a.def.radius, o.position, o.radius)) return;
        const bool new_contact = begins(obstacle_pair_key(a.id, o.id));
        const Vec2 dv = bounce_off_static(a.position, a.velocity, o.position);
        if (dv != Vec2{}) a.velocity += dv;
        if (dv != Vec2{} && new_contact) {
          a.collided = true;
          contacts_.events.push_back(
              {a.id, o.id, true, collision_point(a.position, a.def.radius, o.position, o.radius),
               length(dv) * a.def.mass});
        }
        Vec2 n = normalized_or_zero(a.position - o.position);
        if (n == Vec2{}) n = {1, 0};
        const double overlap = a.def.radius + o.radius - length(a.position - o.position);
        if (overlap > 0) a.position += n * overlap;
      });
    }
  }
  std::sort(contacts_.touching_next.begin(), contacts_.touching_next.end());
  contacts_.touching.swap(contacts_.touching_next);
  for_each_agent(agents_.size(), [this](std::size_t i, Scratch&) {
    Agent& a = agents_[i];
    const double r = std::min({a.def.radius, def_.width / 2, def_.height / 2});
    a.position.x = std::clamp(a.position.x, r, def_.width - r);
    a.position.y = std::clamp(a.position.y, r, def_.height - r);
  });
}

}  // namespace herd::sim
