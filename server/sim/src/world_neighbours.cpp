// The world's neighbour search: which agents and obstacles each agent avoids this tick
// (gather_neighbours, over the spatial grids, for the anti-gravity modes), and the adapter that
// gives a member of a reciprocal move its neighbours as RVO2's ORCA wants them
// (reciprocal_desire). The step's stages (world_step.cpp) call both from the avoidance stage.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "geometry.hpp"
#include "steering.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

// cfsm mode: an arriving agent held up within this many of its radii of its place, beside
// arrived agents of its own order in its way there, takes the place where it stands; and those
// standing make way only for movers that will not (headway_desire, yield_velocity).
constexpr double kSettleRadii = 24;
// cfsm mode: an entry of headway_desire's neighbours that is an obstacle, not an agent.
constexpr std::uint32_t kNoIndex = ~std::uint32_t{0};

}  // namespace

double WorldImpl::gather_neighbours(std::size_t i, Scratch& scratch, bool with_ids) const {
  NeighbourBatch& out = scratch.batch;
  std::vector<std::uint32_t>& ids = scratch.ids;
  scan::Candidates& found = scratch.found;
  const scan::Kernels& kernels = scan::kernels();
  out.clear();
  ids.clear();
  const Agent& a = agents_[i];
  // The subject it heads for, by index (agents_ is ordered by id: indices order as ids do).
  // (A point target has no agent: no search.)
  const std::size_t skip = heads_for_subject(a.behaviour) && a.behaviour.agent != kNoAgent
                               ? index_of(a.behaviour.agent)
                               : agents_.size();
  // Nothing farther away than the goal (plus both radii) can touch the straight path to it, so it
  // is not in the way: without this, agents standing at the slots next to an agent's own slot push
  // it away for ever and a formation never closes.
  const std::optional<Vec2> goal = desires_[i].goal;
  const double scale = neighbours_.cutoff_scale;  // push_cutoff without a sqrt per pair
  // The push cutoff against the largest radius, and the reach: no farther than the goal allows.
  const double max_cutoff = (a.def.radius + neighbours_.max_agent_radius) * scale;
  // The distance to the goal, unless only the reach needs it and the goal is beyond the cutoff
  // (most agents, most ticks): then the reach is the cutoff, and the square root, which the whole
  // search would wait on, is not taken.
  const double to_goal2 = goal ? length_squared(*goal - a.position) : HUGE_VAL;
  const bool goal_matters = !neighbours_.uniform_radius || !obstacles_.items.empty() ||
                            !walls_.empty() || to_goal2 < max_cutoff * max_cutoff;
  const double to_goal =
      goal && goal_matters ? std::sqrt(to_goal2) : std::numeric_limits<double>::infinity();
  // d2: the squared distance to the other's centre; r: its radius.
  auto beyond_goal = [&](double d2, double r) {
    const double limit = to_goal + a.def.radius + r;
    return d2 > limit * limit;
  };
  const double reach = std::min(max_cutoff, to_goal + a.def.radius + neighbours_.max_agent_radius);
  const double reach2 = reach * reach;
  // When every agent has the same radius, the others' cutoff is one number, and d2 <= reach2
  // already keeps everything beyond the goal out: the filter over the grid's positions is the
  // whole test but for the agent itself and its subject.
  const double cutoff2 = neighbours_.uniform_radius ? max_cutoff * max_cutoff : HUGE_VAL;
  // Keeps, in place and in order, the candidates among the first n that keep(d2, slot, index)
  // says yes to; returns how many (a compaction without a branch).
  auto compact = [&](std::size_t n, auto keep) {
    std::size_t kept = 0;
    for (std::size_t m = 0; m < n; ++m) {
      const double d2 = found.d2[m];
      const std::uint32_t k = found.slot[m], index = found.index[m];
      found.d2[kept] = d2;
      found.slot[kept] = k;
      found.index[kept] = index;
      kept += static_cast<std::size_t>(keep(d2, k, index));
    }
    return kept;
  };
  // Candidates in two passes. First the grid's runs of slots near the agent, through its copy of
  // the positions: the filter kernel keeps those within the limit, but for the agent itself and
  // its subject, eight slots at a time where the processor can. Then, only when radii differ,
  // those are checked against the others' radii (kept by slot in neighbours_.slots, never in the
  // agents' own records, which lie all over memory), in place.
  const std::uint32_t self = static_cast<std::uint32_t>(i),
                      subject = static_cast<std::uint32_t>(skip);
  // The nearest candidate's squared distance, before any is left out for its radius, its
  // formation or the cap: with the last search's limit, a bound on everyone's (the clearance).
  double nearest2 = HUGE_VAL, searched2 = 0;
  auto collect = [&](double radius, double limit) {
    std::size_t n = 0;
    neighbours_.grid.query_runs(a.position, radius, [&](std::uint32_t begin, std::uint32_t end) {
      found.reserve(n + (end - begin));
      const std::size_t m = kernels.filter(
          neighbours_.grid.xs(), neighbours_.grid.ys(), neighbours_.grid.items(), begin, end,
          a.position.x, a.position.y, limit, cutoff2, self, subject, found.d2.data() + n,
          found.slot.data() + n, found.index.data() + n, &nearest2);
      n += m;
    });
    // Every agent but these two nearer than radius is in the cells searched, and the filter kept
    // every one of them with d2 <= limit and d2 < cutoff2.
    searched2 = std::min({limit, cutoff2, radius * radius});
    if (neighbours_.uniform_radius) return n;
    return compact(n, [&](double d2, std::uint32_t k, std::uint32_t) {
      const double r = neighbours_.slots[k].radius;
      const double cutoff = (a.def.radius + r) * scale;
      return (d2 < cutoff * cutoff) & !beyond_goal(d2, r);
    });
  };
  // With a cap, the K nearest (ties by id, that is by index). Where the agent's own cell holds
  // more than K, a bound on the K-th nearest distance narrows the search: cells, and agents,
  // farther than it cannot be among the K nearest, and the grid skips them.
  const std::size_t K = def_.avoidance.max_neighbours;
  const std::span<const std::uint32_t> tags = together();
  const std::uint32_t together = tags.empty() ? 0 : tags[i];
  double bound = reach2;
  std::size_t n = 0;
  bool searched = false;
  // Layers outside its mask and agents less important than it are not avoided: they are left out
  // before the cap, so the cap keeps the K nearest it does avoid (and the shortcuts below, which
  // bound the K nearest of everyone, are not taken).
  const bool filtered = neighbours_.filters_neighbours(a);
  if (K > 0 && together == 0 && !filtered) {
    // First a guess from the density of the three by three cells around it: the disc that holds
    // K + 2 sqrt(K) on average, when that is within the reach. When it holds at least K, the K
    // nearest are among them (no agent outside is nearer than any inside). In a crowd of 25
    // square units per agent it mostly does, with a third of the candidates the reach has.
    const auto [around, cells] =
        neighbours_.grid.count_around(a.position);  // the agent itself included
    const double k = static_cast<double>(K), cell = neighbours_.grid.cell_size();
    const double area = (k + 2 * std::sqrt(k)) * cell * cell * cells / kPi;  // guess2 * around
    if (area < reach2 * static_cast<double>(around)) {
      const double guess2 = area / static_cast<double>(around);
      n = collect(std::sqrt(guess2), guess2);
      if (n >= K) {
        bound = guess2;
        searched = true;
      }
    }
    // Else a bound from its own cell alone, when it holds more than K (in a crowd piled on a
    // point it holds K): fewer than K there, no bound. Not where the cell, spread evenly, holds
    // fewer than K within the reach: cells sized by the world's area can be many reaches wide
    // (an antipodal circle's ring crosses cells of 160 units, 30 to 45 agents each, 23 units of
    // reach), and there the pass only costs a search.
    const double here = static_cast<double>(neighbours_.grid.count_in_cell(a.position));
    if (!searched && here > k && here * kPi * reach2 > k * cell * cell) {
      n = collect(0.0, reach2);
      if (n >= K) {
        if (n > K) n = kernels.keep_nearest(found, n, K, reach2, scratch.order);
        bound = std::min(
            bound,
            *std::max_element(found.d2.begin(), found.d2.begin() + static_cast<std::ptrdiff_t>(n)));
      }
    }
  }
  if (!searched) n = collect(std::min(reach, std::sqrt(bound)), bound);
  if (together != 0)  // its formation's members are not in its way
    n = compact(
        n, [&](double, std::uint32_t, std::uint32_t index) { return tags[index] != together; });
  if (filtered)
    n = compact(n, [&](double, std::uint32_t k, std::uint32_t) { return neighbours_.heeds(a, k); });
  // Over the cap: keep the K nearest, in the grid's (deterministic) order, without sorting.
  if (K > 0 && n > K) n = kernels.keep_nearest(found, n, K, bound, scratch.order);
  out.resize(n);
  {  // through local pointers: a store through one of the batch's vectors could, for all the
     // compiler knows, change where the others point, and it would load them again each time
    double* __restrict x = out.x.data();
    double* __restrict y = out.y.data();
    double* __restrict vx = out.vx.data();
    double* __restrict vy = out.vy.data();
    double* __restrict radius = out.radius.data();
    double* __restrict obstacle = out.obstacle.data();
    const double* xs = neighbours_.grid.xs();
    const double* ys = neighbours_.grid.ys();
    const SlotData* slots = neighbours_.slots.data();
    const std::uint32_t* slot = found.slot.data();
    for (std::size_t m = 0; m < n; ++m) {
      const std::uint32_t k = slot[m];
      x[m] = xs[k];
      y[m] = ys[k];
      vx[m] = slots[k].velocity.x;
      vy[m] = slots[k].velocity.y;
      radius[m] = slots[k].radius;
      obstacle[m] = 0.0;
    }
  }
  // Ids only matter to a trace; reading them would touch every neighbour's record.
  if (with_ids)
    for (std::size_t m = 0; m < n; ++m) ids.push_back(agents_[found.index[m]].id);
  if (skip != agents_.size())
    nearest2 = std::min(nearest2, length_squared(agents_[skip].position - a.position));
  if (!obstacles_.items.empty()) {
    neighbours_.obstacle_index.query(
        a.position, [&](double r) { return (a.def.radius + r) * scale; },
        [&](std::uint32_t k) {
          const Obstacle& o = obstacles_.items[k];
          const double d2 = length_squared(o.position - a.position);
          const double cutoff = (a.def.radius + o.radius) * scale;
          if (beyond_goal(d2, o.radius) || d2 >= cutoff * cutoff) return;
          out.push(o.position, {}, o.radius, true);
          if (with_ids) ids.push_back(o.id);
        });
  }
  // Each wall segment within reach, as a static obstacle of radius 0 at its nearest point (id 0
  // in a trace: no obstacle has it).
  if (!walls_.empty())
    walls_.near_points(a.position, a.def.radius * scale, scratch.walls, [&](Vec2 q) {
      if (beyond_goal(length_squared(q - a.position), 0)) return;
      out.push(q, {}, 0, true);
      if (with_ids) ids.push_back(0);
    });
  return std::min(nearest2, searched2);
}

Vec2 WorldImpl::yield_velocity(std::size_t i, Scratch& scratch, bool any_priority) const {
  const Agent& a = agents_[i];
  // Within the reach of the strongest anti-gravity push (as gather_neighbours looks), the more
  // important movers it heeds whose path, within the look-ahead (AvoidanceDef::lookahead), passes
  // nearer than the two radii and a quarter: it steps away from each path, sideways to it, on the
  // side it already stands (the mover's preferred side when dead ahead), the harder the nearer
  // the path and the sooner the mover comes.
  constexpr double kMargin = 1.25;
  const double reach = (a.def.radius + neighbours_.max_agent_radius) * neighbours_.cutoff_scale;
  const double horizon = std::max(def_.avoidance.lookahead, def_.dt);
  const double preferred = def_.avoidance.preferred_side == Side::right ? 1.0 : -1.0;
  const std::uint32_t self = static_cast<std::uint32_t>(i);
  const std::span<const std::uint32_t> tags = together();
  scan::Candidates& found = scratch.found;
  Vec2 away;
  neighbours_.grid.query_runs(a.position, reach, [&](std::uint32_t begin, std::uint32_t end) {
    found.reserve(end - begin);
    const std::size_t m = scan::kernels().filter(
        neighbours_.grid.xs(), neighbours_.grid.ys(), neighbours_.grid.items(), begin, end,
        a.position.x, a.position.y, reach * reach, HUGE_VAL, self, self, found.d2.data(),
        found.slot.data(), found.index.data(), nullptr);
    for (std::size_t q = 0; q < m; ++q) {
      const std::uint32_t k = found.slot[q];
      Vec2 dir;
      double speed = 0;
      if (any_priority) {
        if (neighbours_.rules.any() && (neighbours_.slot_rules[k].layer & a.def.mask) == 0)
          continue;
        // On its way: it has a goal beyond its reach (this tick's desires' goals are set before
        // the avoidance stage, which writes only their velocities), and it is not standing there
        // itself. Its way is the straight line to its goal at its top speed, whether or not it is
        // held up: one that stops in front of it is still to be let through.
        const std::size_t j = found.index[q];
        const Desire& theirs = desires_[j];
        const Agent& other = agents_[j];
        const Vec2 there = theirs.goal ? *theirs.goal - neighbours_.grid.position(k) : Vec2{};
        const double reach_there = 2 * other.def.radius;
        if (!theirs.goal || !theirs.arriving || other.state != MoveState::moving ||
            length_squared(there) <= reach_there * reach_there)
          continue;
        // One of its own order (a group sent together) settles by contact beside those who
        // stopped first (OrderService, or headway_desire's places): they do not shuffle to let it
        // through. Of no order, the same when its place is near (headway_desire takes a place
        // within kSettleRadii).
        const double settles = kSettleRadii * other.def.radius;
        if (other.order == a.order && (a.order != 0 || length_squared(there) <= settles * settles))
          continue;
        // Nor for a member of its own formation or move (they keep their places together).
        if (!tags.empty() && tags[i] != 0 &&
            (tags[j] & ~FormationService::kCritical) == (tags[i] & ~FormationService::kCritical))
          continue;
        dir = normalized_or_zero(there);
        speed = other.def.max_speed;
      } else {
        if (neighbours_.slot_rules[k].priority >= a.def.priority || !neighbours_.heeds(a, k))
          continue;
        const Vec2 v = neighbours_.slots[k].velocity;
        speed = length(v);
        dir = speed > 0 ? v * (1.0 / speed) : Vec2{};
      }
      if (!(speed > 0)) continue;
      const Vec2 rel = a.position - neighbours_.grid.position(k);
      const double rsum = a.def.radius + neighbours_.slots[k].radius;
      const double along = dot(rel, dir);
      const double across = cross(dir, rel);  // > 0: on the side of {-dir.y, dir.x}
      const double clear = kMargin * rsum;
      const double when = std::max(0.0, along - rsum) / speed;
      if (along < -rsum || std::abs(across) >= clear || when > horizon) continue;
      const double side = across > 0 ? 1.0 : across < 0 ? -1.0 : preferred;
      const double urgency = (1 - std::abs(across) / clear) * (1 - when / horizon);
      away += Vec2{-dir.y, dir.x} * (side * urgency);
    }
  });
  const double strength = length(away);
  if (!(strength > 0)) return {};
  return away * (a.def.max_speed * std::min(1.0, 2 * strength) / strength);
}

Vec2 WorldImpl::reciprocal_desire(std::size_t i, Scratch& scratch, bool& aside) const {
  // The horizon: under half a second, the time to close three radii at full speed. Longer, a
  // member crossing a lattice of members standing in place finds every way blocked within it and
  // crawls. The nearest kMaxNeighbours within reach of that, as RVO2 keeps its nearest ten.
  constexpr double kHorizon = 0.45;
  constexpr std::size_t kMaxNeighbours = 16;
  // Each keeps this far from the others' edges: velocity obstacles steer to the very edge of
  // touching, and steering limited by max force falls short of it (measured on grids of 32 to
  // 1,000: without it 4,000 collisions where there are 100 with it, at the same pace).
  constexpr double kGap = 0.5;
  // Orca mode: of two agents of one priority, the one of the smaller id takes this much less than
  // half of the pair's avoidance and the other this much more. A perfectly symmetric crowd (a
  // ring of agents each bound for the point opposite) otherwise closes into a ring that none can
  // leave: RVO2 leaves such ties to rounding, which a crowd whose steering smooths its velocity
  // does not break (measured: rings of 50 to 300 locked, or locked and collided, at 0.5 each).
  constexpr double kTieBreak = 0.1;
  const Agent& a = agents_[i];
  // In orca mode every agent avoids every other so (below): each keeps a quarter of its radius
  // from the others' edges (kGap is a sixteenth of the default radius: a crowd in which all
  // avoid reciprocally leaves more room), and it does not avoid the agent it heads for (its
  // subject: it means to reach it).
  const bool everyone = def_.avoidance.mode == AvoidanceMode::orca;
  const double gap = everyone ? a.def.radius / 4 : kGap;
  const std::size_t subject =
      everyone && heads_for_subject(a.behaviour) && a.behaviour.agent != kNoAgent
          ? index_of(a.behaviour.agent)
          : agents_.size();
  // A critical member leaves the others to get out of its way, but for those it could not stop
  // short of: nearer than the two radii, a unit, and its braking distance at the speed it closes.
  const double accel = a.def.max_force / a.def.mass;
  const std::span<const std::uint32_t> tags = together();
  const std::uint32_t tag = tags.empty() ? 0 : tags[i], move = tag & ~FormationService::kCritical;
  const bool critical = (tag & FormationService::kCritical) != 0;
  const bool reciprocal = (tag & FormationService::kReciprocal) != 0;
  const bool filtered = neighbours_.filters_neighbours(a);
  const bool ranked = neighbours_.rules.ranked();
  const double reach = a.def.radius + neighbours_.max_agent_radius + 2 * a.def.max_speed * kHorizon;
  // Speed falls with density (below): it counts those heeded within kCrowdRadii of its radius.
  constexpr double kCrowdRadii = 5;
  const double crowd_reach = kCrowdRadii * a.def.radius;
  std::vector<ReciprocalNeighbour>& near = scratch.reciprocal;
  const auto gather = [&](double within) {
    near.clear();
    neighbours_.near_grid.query_points(
        a.position, within, [&](std::uint32_t slot, Vec2 p, std::uint32_t) {
          const std::uint32_t j = neighbours_.grid.index(slot);
          const double d2 = length_squared(p - a.position);
          if (j == i || j == subject || d2 > within * within) return;
          // Outside its mask, or less important: not avoided (the other takes all of the pair's
          // avoidance, RVO2's responsibility split at 1 and 0, as Unity's priorities do).
          if (filtered && !neighbours_.heeds(a, slot)) return;
          const SlotData& o = neighbours_.slots[slot];
          // Others avoid it their own way: it takes all of the avoidance; in orca mode everyone
          // avoids so, and each of a pair takes half.
          double share = everyone ? (j < i ? 0.5 + kTieBreak : 0.5 - kTieBreak) : 1;
          if (ranked && neighbours_.slot_rules[slot].priority < a.def.priority) {
            share = 1;  // more important: it takes none of the avoidance
          } else if (reciprocal && !tags.empty() &&
                     (tags[j] & ~FormationService::kCritical) == move) {
            const bool its_critical = (tags[j] & FormationService::kCritical) != 0;
            if (critical == its_critical) {
              share = 0.5;
            } else if (critical) {
              const double closing = std::max(0.0, dot(a.velocity - o.velocity, p - a.position)) /
                                     std::sqrt(std::max(d2, 1e-12));
              const double close =
                  a.def.radius + o.radius + 1 + (accel > 0 ? closing * closing / (2 * accel) : 0.0);
              if (d2 > close * close) return;
              share = 0.5;
            } else {
              share = 1;  // it gets out of a critical member's way
            }
          }
          // Orca mode: velocity obstacles assume each can take its new velocity at once; steering
          // limited by max force takes time, and meanwhile they close. An approaching neighbour
          // counts as larger by the distance its closing speed takes to brake away, c² / 2a (as the
          // acceleration-velocity obstacles of van den Berg et al. 2011 widen the obstacle for the
          // lag), so each starts giving way while it still can (measured on rings of 30 to 300,
          // each agent bound for the point opposite: no collision, where without it they locked, or
          // collided up to 221 times).
          double radius = o.radius + gap;
          if (everyone && accel > 0) {
            const double closing = std::max(0.0, dot(a.velocity - o.velocity, p - a.position)) /
                                   std::sqrt(std::max(d2, 1e-12));
            radius += closing * closing / (2 * accel);
          }
          near.push_back({p, o.velocity, radius, share});
        });
  };
  // Only the nearest kMaxNeighbours are kept, and in a crowd they are far nearer than reach
  // (a reach of 124 units held 500 members in a dense crowd: 5,000 members took 107 ms a tick).
  // So it looks first as far as the crowd count needs and as far as 1.25 kMaxNeighbours would
  // be at the world's mean density, then twice as far while that finds fewer, up to reach:
  // everything within a look was found, so its nearest are the nearest within reach.
  const double mean_spacing2 =
      def_.width * def_.height / static_cast<double>(std::max<std::size_t>(agents_.size(), 1));
  double within = std::min(
      reach, std::max(crowd_reach, std::sqrt(1.25 * kMaxNeighbours * mean_spacing2 / 3.14)));
  gather(within);
  while (near.size() < kMaxNeighbours && within < reach) {
    within = std::min(reach, 2 * within);
    gather(within);
  }
  // Speed falls with density, as in a crowd of people (the fundamental diagram of pedestrian
  // flow): with more than kCrowdFree of those it heeds within kCrowdRadii of its radius, a member
  // wishes for that many over their count of its speed, and takes no more than the square root
  // of that share of max speed to avoid the others (room to step aside faster than it walks on).
  // Where the longest ways meet (from a ring, all at its centre at once) ORCA's velocities changed
  // faster than max force could follow: at full speed there, 5,000 members from a ring overlapped
  // by 1.55 units, and 1,000 from a ring at the circle's default spacing by 1.62.
  constexpr std::size_t kCrowdFree = 6;
  std::size_t crowd = 0;
  for (const ReciprocalNeighbour& n : near)
    crowd += length_squared(n.position - a.position) < crowd_reach * crowd_reach;
  if (near.size() > kMaxNeighbours) {
    std::nth_element(near.begin(), near.begin() + kMaxNeighbours, near.end(),
                     [&](const ReciprocalNeighbour& x, const ReciprocalNeighbour& y) {
                       return length_squared(x.position - a.position) <
                              length_squared(y.position - a.position);
                     });
    near.resize(kMaxNeighbours);
  }
  neighbours_.obstacle_index.query_within(a.position, reach, [&](std::uint32_t k) {
    const Obstacle& o = obstacles_.items[k];
    if (length(o.position - a.position) <= reach + o.radius)
      near.push_back({o.position, {}, o.radius + gap, 1.0});
  });
  // Walls as static neighbours at each segment's nearest point, as obstacles of radius 0.
  walls_.near_points(a.position, reach, scratch.walls, [&](Vec2 q) {
    near.push_back({q, {}, kGap, 1.0});
  });
  // Velocity obstacles act on velocities: a member standing between another and its goal never
  // moves (nothing comes at it) and the other stops short of it. So, as the side fix decides dead
  // ahead, the way to the goal goes round the nearest one in it: along the tangent to the disc it
  // must not enter, on the side the way already passes it (the preferred side when dead on).
  Vec2 preferred = desires_[i].velocity;
  const double slow =
      crowd > kCrowdFree ? static_cast<double>(kCrowdFree) / static_cast<double>(crowd) : 1.0;
  preferred *= slow;
  if (const std::optional<Vec2> goal = desires_[i].goal; goal && preferred != Vec2{}) {
    const Vec2 to_goal = *goal - a.position;
    const double goal_distance = length(to_goal);
    const Vec2 ahead = to_goal * (1.0 / goal_distance);
    const ReciprocalNeighbour* block = nullptr;
    double block_along = goal_distance, block_across = 0;  // across > 0: on the right (y down)
    for (const ReciprocalNeighbour& n : near) {
      const Vec2 rel = n.position - a.position;
      const double along = dot(rel, ahead), across = cross(ahead, rel);
      if (along > 0 && along < block_along && std::abs(across) < a.def.radius + n.radius) {
        block = &n;
        block_along = along;
        block_across = across;
      }
    }
    if (block) {
      const Vec2 rel = block->position - a.position;
      const double dist = length(rel);
      const double rsum = a.def.radius + block->radius;
      // A positive angle turns right on the screen (y down), as avoidance's sides do.
      const double side = block_across > 0 ? -1.0
                          : block_across < 0
                              ? 1.0
                              : (def_.avoidance.preferred_side == Side::right ? 1.0 : -1.0);
      const double turn = dist > rsum ? std::asin(rsum / dist) : kPi / 2;
      preferred = rotate(rel * (1.0 / dist), turn * side) * length(preferred);
    }
  }
  const double max_speed = a.def.max_speed * std::sqrt(slow);
  const Vec2 v = reciprocal_velocity(a.position, a.velocity, a.def.radius, preferred, max_speed,
                                     near, kHorizon, def_.dt, scratch.lines);
  aside = v != clamp_length(preferred, max_speed);
  return v;
}

Vec2 WorldImpl::headway_desire(std::size_t i, Scratch& scratch) {
  const Agent& a = agents_[i];
  const AvoidanceDef& av = def_.avoidance;
  Vec2 wish = desires_[i].velocity;
  const std::optional<Vec2> goal = desires_[i].arriving ? desires_[i].goal : std::nullopt;
  const double r = a.def.radius;
  const double to_goal = goal ? length(*goal - a.position) : HUGE_VAL;
  // One standing (idle, or within kYieldRadii radii of the place it arrives at: it may have
  // stepped that far aside already, and stays out of the way while the mover is still coming)
  // steps out of the way of a mover coming at it, whoever it is, and the model takes it aside;
  // once clear, its arrive brings it back to its place. One told to hold does not yield.
  constexpr double kYieldRadii = 4;
  const double still = a.def.max_force / a.def.mass * def_.dt;
  const bool standing =
      length_squared(wish) <= still * still || to_goal <= kYieldRadii * a.def.radius;
  if (standing && a.behaviour.kind != BehaviourKind::hold) {
    if (const Vec2 aside = yield_velocity(i, scratch, true); aside != Vec2{}) {
      wish = aside;
      desires_[i].aside = true;
    }
  }
  // At its place (within the arrive tolerance), not yielding: it stands, whatever presses round
  // it (a first-order model has no braking to wait for; its neighbours' repulsion would otherwise
  // keep it sliding about its place at the arrive's last speed).
  if (!desires_[i].aside && to_goal <= a.def.arrive_tolerance) return {};
  const double wish_speed = std::min(length(wish), a.def.max_speed);
  // The model moves those with somewhere to go: one that wishes to stand, stands.
  if (!(wish_speed > 0)) return {};
  const Vec2 e0 = wish * (1.0 / length(wish));
  const double range = av.repulsion_range * r, wall_range = av.wall_repulsion_range * r;
  // A repulsion is below a hundredth of the wish beyond ln(100 strength) ranges from contact;
  // the headway matters up to the gap that allows the speed wished for.
  auto fade = [](double strength, double range) {
    return strength > 0 ? range * std::log(std::max(1.0, 100 * strength)) : 0.0;
  };
  const double neighbour_fade = fade(av.repulsion_strength, range);
  const double wall_fade = fade(av.wall_repulsion_strength, wall_range);
  const double reach =
      r + neighbours_.max_agent_radius + std::max(neighbour_fade, wish_speed * av.time_gap);
  const bool filtered = neighbours_.filters_neighbours(a);
  const std::size_t subject = heads_for_subject(a.behaviour) && a.behaviour.agent != kNoAgent
                                  ? index_of(a.behaviour.agent)
                                  : agents_.size();
  // The neighbours within reach (the one it heads for is not in its way: it means to reach it),
  // each pushing the direction away from it by strength exp((r1 + r2 - d) / range).
  std::vector<ReciprocalNeighbour>& near = scratch.reciprocal;
  std::vector<std::uint32_t>& near_index = scratch.near_index;
  near.clear();
  near_index.clear();
  Vec2 push;
  neighbours_.near_grid.query_points(
      a.position, reach, [&](std::uint32_t slot, Vec2 p, std::uint32_t) {
        const std::uint32_t j = neighbours_.grid.index(slot);
        const Vec2 rel = p - a.position;
        const double d2 = length_squared(rel);
        if (j == i || j == subject || d2 > reach * reach) return;
        if (filtered && !neighbours_.heeds(a, slot)) return;
        const double other = neighbours_.slots[slot].radius;
        near.push_back({p, {}, other, 0});
        near_index.push_back(j);
        const double d = std::sqrt(d2);
        const double l = r + other;
        if (d > 0 && d < l + neighbour_fade)
          push -= rel * (av.repulsion_strength * std::exp((l - d) / range) / d);
      });
  // Static geometry pushes by strength exp((r - d) / range) from its nearest point, d the
  // distance to it: obstacles (in the headway too: they stand in the way as agents do), thin
  // walls, blocked tiles and the world's edges.
  auto repel_from = [&](Vec2 q) {
    const Vec2 rel = q - a.position;
    const double d = length(rel);
    if (d > 0 && d < r + wall_fade)
      push -= rel * (av.wall_repulsion_strength * std::exp((r - d) / wall_range) / d);
  };
  neighbours_.obstacle_index.query_within(a.position, reach, [&](std::uint32_t k) {
    const Obstacle& o = obstacles_.items[k];
    const Vec2 rel = o.position - a.position;
    const double d = length(rel);
    if (d > reach + o.radius) return;
    near.push_back({o.position, {}, o.radius, 1});
    near_index.push_back(kNoIndex);
    if (d > o.radius) repel_from(a.position + rel * ((d - o.radius) / d));
  });
  walls_.near_points(a.position, r + wall_fade, scratch.walls, repel_from);
  const double near_edge = r + wall_fade;
  if (map_) {
    const double s = map_->tile_size();
    const TileCoord lo = map_->tile_at(a.position - Vec2{near_edge, near_edge});
    const TileCoord hi = map_->tile_at(a.position + Vec2{near_edge, near_edge});
    for (std::int32_t ty = lo.y; ty <= hi.y; ++ty)
      for (std::int32_t tx = lo.x; tx <= hi.x; ++tx) {
        if (!map_->blocked(tx, ty)) continue;
        const Vec2 q{std::clamp(a.position.x, tx * s, (tx + 1) * s),
                     std::clamp(a.position.y, ty * s, (ty + 1) * s)};
        repel_from(q);  // a centre inside the tile is the collision stage's to push out
      }
  }
  if (a.position.x < near_edge) repel_from({0, a.position.y});
  if (a.position.x > def_.width - near_edge) repel_from({def_.width, a.position.y});
  if (a.position.y < near_edge) repel_from({a.position.x, 0});
  if (a.position.y > def_.height - near_edge) repel_from({a.position.x, def_.height});
  // The direction: the wish turned by the pushes; where they cancel it exactly, the way it was
  // going (or the wish, standing). Where they nearly cancel it (one pressed against others whose
  // repulsion balances its wish), it slows in proportion: the published model keeps the speed
  // and flips its direction tick by tick about the balance, which a crowd at rest, pressed round
  // a door or a place, shows as a shiver; damped, it stands.
  const Vec2 steer = e0 + push;
  Vec2 direction = normalized_or_zero(steer);
  if (direction == Vec2{}) {
    direction = normalized_or_zero(a.velocity);
    if (direction == Vec2{}) direction = e0;
  }
  // The headway: the gap to the nearest disc ahead in its lane (whose centre is ahead and within
  // the two radii of its line of walking), and the speed that keeps the time gap to it.
  double gap = HUGE_VAL;
  for (const ReciprocalNeighbour& n : near) {
    const Vec2 rel = n.position - a.position;
    const double l = r + n.radius;
    if (dot(direction, rel) < 0 || std::abs(cross(direction, rel)) > l) continue;
    gap = std::min(gap, length(rel) - l);
  }
  const double speed =
      std::clamp(gap / av.time_gap, 0.0, wish_speed) * std::min(1.0, 2 * length(steer));
  // Arriving, and held up: nothing of the model's velocity left towards its goal (the headway
  // closed, or the repulsion of those standing round the place balancing the wish).
  if (!goal || desires_[i].aside || to_goal > kSettleRadii * r) return direction * speed;
  const Vec2 way = *goal - a.position;
  if (dot(direction, way) * speed > 0.01 * a.def.max_speed * to_goal) return direction * speed;
  // Within two radii of its goal, it stops and takes the place where it stands (stage_states).
  // Without this, one whose place others crowd round hovers beside it for ever, never arrived.
  if (to_goal <= 2 * r || takes_place_beside(a, way, near, near_index, range)) {
    neighbours_.takes_place[i] = 1;
    return {};
  }
  return direction * speed;
}

bool WorldImpl::takes_place_beside(const Agent& a, Vec2 way,
                                   std::span<const ReciprocalNeighbour> near,
                                   std::span<const std::uint32_t> near_index, double range) const {
  // Nearer its place than kSettleRadii radii (the caller's test), held up beside one of its own
  // order (of no order, both) that has arrived and stands in its way there, within the gap at
  // which their repulsion balances a wish: the others stand round a place it cannot reach through
  // them, and it takes the place where it stands, as a group's member settles by contact
  // ("near"). Held up by others, it waits, or they yield: it is passing through.
  const double r = a.def.radius;
  const double balance = range * std::log(std::max(def_.avoidance.repulsion_strength, 1.0)) +
                         OrderService::kSettleGap * r;
  bool beside = false;
  for (std::size_t m = 0; m < near.size() && !beside; ++m) {
    if (near_index[m] == kNoIndex) continue;  // an obstacle
    const Agent& other = agents_[near_index[m]];
    const Vec2 to = near[m].position - a.position;
    beside = other.order == a.order && other.state == MoveState::arrived &&
             length(to) - r - near[m].radius <= balance && in_the_way(to, way);
  }
  if (!beside || !map_) return beside;
  // Not within four radii of a blocked tile (in or beside a door, against a wall): one that
  // settled in a door would stop all behind it.
  const TileCoord lo = map_->tile_at(a.position - Vec2{4 * r, 4 * r});
  const TileCoord hi = map_->tile_at(a.position + Vec2{4 * r, 4 * r});
  for (std::int32_t ty = lo.y; ty <= hi.y; ++ty)
    for (std::int32_t tx = lo.x; tx <= hi.x; ++tx)
      if (map_->blocked(tx, ty)) return false;
  return true;
}

}  // namespace herd::sim
