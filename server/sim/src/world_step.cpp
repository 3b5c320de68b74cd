// The World's step: a script of stages, each a loop over the agent array.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "geometry.hpp"
#include "steering.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

// Keeps an agent's disc inside the world; a wall stops the velocity component into it.
void confine(Agent& a, double width, double height) {
  const double r = std::min({a.def.radius, width / 2, height / 2});
  if (a.position.x < r) { a.position.x = r; a.velocity.x = std::max(a.velocity.x, 0.0); }
  if (a.position.x > width - r) { a.position.x = width - r; a.velocity.x = std::min(a.velocity.x, 0.0); }
  if (a.position.y < r) { a.position.y = r; a.velocity.y = std::max(a.velocity.y, 0.0); }
  if (a.position.y > height - r) { a.position.y = height - r; a.velocity.y = std::min(a.velocity.y, 0.0); }
}

// An arriving agent within tolerance of its goal and slow enough that one tick's braking stops it
// dead has arrived: it stops there instead of creeping the last fraction of a unit.
bool can_stop_dead(const Agent& a, const Desire& d, double dt) {
  return d.arriving && d.goal && length(*d.goal - a.position) <= a.def.arrive_tolerance &&
         length(a.velocity) <= a.def.max_force / a.def.mass * dt;
}

// Behaviours that head for their subject: it is their target, never an obstacle (seed 003).
bool heads_for_subject(const Agent& a) {
  const Behaviour& b = a.behaviour;
  switch (b.kind) {
    case BehaviourKind::seek:
    case BehaviourKind::arrive:
    case BehaviourKind::pursue: return true;
    case BehaviourKind::attack: return b.phase == Phase::approach;
    case BehaviourKind::react: return b.phase == Phase::respond && b.response == BehaviourKind::pursue;
    default: return false;
  }
}

// Kinematic motion (seeds 000/003: "multiply the direction vector by speed"): the heading follows
// the desire at once; only the speed changes at most max_force/mass * dt per tick.
Vec2 kinematic_velocity(const Agent& a, Vec2 desired, double dt) {
  const double speed = length(a.velocity);
  const double want = std::min(length(desired), a.def.max_speed);
  const double step = a.def.max_force / a.def.mass * dt;
  const double next = want > speed ? std::min(want, speed + step) : std::max(want, speed - step);
  const Vec2 heading = desired == Vec2{} ? normalized_or_zero(a.velocity) : normalized_or_zero(desired);
  return heading * next;
}

}  // namespace

const Agent* WorldImpl::subject_of(const Agent& a) const {
  return a.behaviour.agent == kNoAgent ? nullptr : find(a.behaviour.agent);
}

void WorldImpl::step() {
  const std::uint64_t start = clock_ ? clock_() : 0;
  begin_step();
  run_stage(Stage::assignments, &WorldImpl::stage_assignments);
  run_stage(Stage::phases, &WorldImpl::stage_phases);
  run_stage(Stage::grid, &WorldImpl::stage_grid);
  run_stage(Stage::desires, &WorldImpl::stage_desires);
  run_stage(Stage::pathing, &WorldImpl::stage_pathing);
  run_stage(Stage::pace, &WorldImpl::stage_pace);
  run_stage(Stage::avoidance, &WorldImpl::stage_avoidance);
  run_stage(Stage::integrate, &WorldImpl::stage_integrate);
  run_stage(Stage::collisions, &WorldImpl::stage_collisions);
  run_stage(Stage::walls, &WorldImpl::stage_walls);
  run_stage(Stage::states, &WorldImpl::stage_states);
  run_stage(Stage::formations, &WorldImpl::stage_formations);
  ++tick_;
  profile_.step_ns = clock_ ? clock_() - start : 0;
}

void WorldImpl::run_stage(Stage stage, void (WorldImpl::*body)()) {
  if (!clock_) {
    (this->*body)();
    return;
  }
  const std::uint64_t start = clock_();
  (this->*body)();
  profile_.stage_ns[static_cast<std::size_t>(stage)] = clock_() - start;
}

void WorldImpl::begin_step() {
  hit_subject_.resize(agents_.size(), 0);
  desires_.resize(agents_.size());
}

void WorldImpl::stage_phases() {
  // Attack and react switch on what happened last tick (a hit, arriving home) and on distance.
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    Agent& a = agents_[i];
    if (a.behaviour.kind != BehaviourKind::attack && a.behaviour.kind != BehaviourKind::react) continue;
    const bool at_home = a.state == MoveState::arrived;
    update_phase(a, subject_of(a), hit_subject_[i] != 0, at_home);
  }
}

void WorldImpl::stage_grid() {
  // The radii's range, on the workers (reading every record, serially, cost a millisecond at
  // 100,000 agents); min and max give one answer in any order.
  for (Scratch& scratch : scratch_) {
    scratch.min_radius = HUGE_VAL;
    scratch.max_radius = 0;
  }
  for_each_agent(agents_.size(), [this](std::size_t i, Scratch& scratch) {
    scratch.min_radius = std::min(scratch.min_radius, agents_[i].def.radius);
    scratch.max_radius = std::max(scratch.max_radius, agents_[i].def.radius);
  });
  max_agent_radius_ = 0;
  double min_radius = HUGE_VAL;
  for (const Scratch& scratch : scratch_) {
    max_agent_radius_ = std::max(max_agent_radius_, scratch.max_radius);
    min_radius = std::min(min_radius, scratch.min_radius);
  }
  uniform_radius_ = min_radius == max_agent_radius_;
  // Cells as wide as the reach of the strongest typical push: a query spans two or three rows of
  // two or three cells. Smaller cells fit the disc better but cost more rows, each a few
  // branches and a square root: measured, the step is fastest here.
  const double reach = push_cutoff(def_.avoidance, 2 * max_agent_radius_);
  const double cell = SpatialGrid::cell_size_for(agents_.size(), def_.width, def_.height,
                                                 std::max(reach, 2 * max_agent_radius_));
  grid_.rebuild(agents_.size(), [this](std::size_t i) { return agents_[i].position; }, def_.width, def_.height, cell);
  slots_.resize(agents_.size());
  for_each_agent(slots_.size(), [this](std::size_t k, Scratch&) {
    const Agent& a = agents_[grid_.index(k)];
    slots_[k] = {a.velocity, a.def.radius};
  });
  if (obstacle_grid_version_ != obstacles_version_) {  // obstacles rarely change
    obstacle_grid_version_ = obstacles_version_;
    std::vector<Vec2> centres;
    max_obstacle_radius_ = 0;
    for (const Obstacle& o : obstacles_) {
      centres.push_back(o.position);
      max_obstacle_radius_ = std::max(max_obstacle_radius_, o.radius);
    }
    obstacle_grid_.rebuild(centres, def_.width, def_.height,
                           SpatialGrid::cell_size_for(centres.size(), def_.width, def_.height, std::max(4 * max_obstacle_radius_, 1.0)));
  }
}

std::size_t WorldImpl::agent_memory_bytes() const {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
  std::size_t total = bytes(agents_) + bytes(desires_) + bytes(slots_) + bytes(hit_subject_) +
                      bytes(pairs_) + bytes(touching_) + bytes(touching_next_) + bytes(paths_) +
                      grid_.memory_bytes() + obstacle_grid_.memory_bytes();
  for (const PathState& p : paths_) total += bytes(p.waypoints) + bytes(p.walker.history);
  for (const Scratch& s : scratch_)
    total += bytes(s.neighbours) + bytes(s.ids) + s.batch.memory_bytes() + s.found.memory_bytes() + bytes(s.order) + bytes(s.pairs) +
             s.sums.memory_bytes() + bytes(s.pending);
  return total;
}

void WorldImpl::set_executor(Executor* executor) {
  executor_ = executor;
  scratch_.resize(executor ? std::max<std::size_t>(executor->workers(), 1) : 1);
}

void WorldImpl::stage_desires() {
  for_each_agent(agents_.size(), [this](std::size_t i, Scratch&) {
    desires_[i] = desire(agents_[i], subject_of(agents_[i]), def_.dt);
  });
}

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
  const std::size_t skip = heads_for_subject(a) && a.behaviour.agent != kNoAgent ? index_of(a.behaviour.agent)
                                                                                   : agents_.size();
  // Nothing farther away than the goal (plus both radii) can touch the straight path to it, so it
  // is not in the way: without this, agents standing at the slots next to an agent's own slot push
  // it away for ever and a formation never closes.
  const std::optional<Vec2> goal = desires_[i].goal;
  const double scale = cutoff_scale_;  // push_cutoff without a sqrt per pair
  // The push cutoff against the largest radius, and the reach: no farther than the goal allows.
  const double max_cutoff = (a.def.radius + max_agent_radius_) * scale;
  // The distance to the goal, unless only the reach needs it and the goal is beyond the cutoff
  // (most agents, most ticks): then the reach is the cutoff, and the square root, which the whole
  // search would wait on, is not taken.
  const double to_goal2 = goal ? length_squared(*goal - a.position) : HUGE_VAL;
  const bool goal_matters = !uniform_radius_ || !obstacles_.empty() || to_goal2 < max_cutoff * max_cutoff;
  const double to_goal = goal && goal_matters ? std::sqrt(to_goal2) : std::numeric_limits<double>::infinity();
  // d2: the squared distance to the other's centre; r: its radius.
  auto beyond_goal = [&](double d2, double r) {
    const double limit = to_goal + a.def.radius + r;
    return d2 > limit * limit;
  };
  const double reach = std::min(max_cutoff, to_goal + a.def.radius + max_agent_radius_);
  const double reach2 = reach * reach;
  // When every agent has the same radius, the others' cutoff is one number, and d2 <= reach2
  // already keeps everything beyond the goal out: the filter over the grid's positions is the
  // whole test but for the agent itself and its subject.
  const double cutoff2 = uniform_radius_ ? max_cutoff * max_cutoff : HUGE_VAL;
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
  // those are checked against the others' radii (kept by slot in slots_, never in the agents' own
  // records, which lie all over memory), in place.
  const std::uint32_t self = static_cast<std::uint32_t>(i), subject = static_cast<std::uint32_t>(skip);
  // The nearest candidate's squared distance, before any is left out for its radius, its
  // formation or the cap: with the last search's limit, a bound on everyone's (the clearance).
  double nearest2 = HUGE_VAL, searched2 = 0;
  auto collect = [&](double radius, double limit) {
    std::size_t n = 0;
    grid_.query_runs(a.position, radius, [&](std::uint32_t begin, std::uint32_t end) {
      found.reserve(n + (end - begin));
      const std::size_t m = kernels.filter(grid_.xs(), grid_.ys(), grid_.items(), begin, end, a.position.x, a.position.y,
                                           limit, cutoff2, self, subject, found.d2.data() + n, found.slot.data() + n,
                                           found.index.data() + n, &nearest2);
      n += m;
    });
    // Every agent but these two nearer than radius is in the cells searched, and the filter kept
    // every one of them with d2 <= limit and d2 < cutoff2.
    searched2 = std::min({limit, cutoff2, radius * radius});
    if (uniform_radius_) return n;
    return compact(n, [&](double d2, std::uint32_t k, std::uint32_t) {
      const double r = slots_[k].radius;
      const double cutoff = (a.def.radius + r) * scale;
      return (d2 < cutoff * cutoff) & !beyond_goal(d2, r);
    });
  };
  // With a cap, the K nearest (ties by id, that is by index). Where the agent's own cell holds
  // more than K, a bound on the K-th nearest distance narrows the search: cells, and agents,
  // farther than it cannot be among the K nearest, and the grid skips them.
  const std::size_t K = def_.avoidance.max_neighbours;
  const std::uint32_t together = together_.empty() ? 0 : together_[i];
  double bound = reach2;
  std::size_t n = 0;
  bool searched = false;
  if (K > 0 && together == 0) {
    // First a guess from the density of the three by three cells around it: the disc that holds
    // K + 2 sqrt(K) on average, when that is within the reach. When it holds at least K, the K
    // nearest are among them (no agent outside is nearer than any inside). In a crowd of 25
    // square units per agent it mostly does, with a third of the candidates the reach has.
    const auto [around, cells] = grid_.count_around(a.position);  // the agent itself included
    const double k = static_cast<double>(K), cell = grid_.cell_size();
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
    const double here = static_cast<double>(grid_.count_in_cell(a.position));
    if (!searched && here > k && here * kPi * reach2 > k * cell * cell) {
      n = collect(0.0, reach2);
      if (n >= K) {
        if (n > K) n = kernels.keep_nearest(found, n, K, reach2, scratch.order);
        bound = std::min(bound, *std::max_element(found.d2.begin(), found.d2.begin() + static_cast<std::ptrdiff_t>(n)));
      }
    }
  }
  if (!searched) n = collect(std::min(reach, std::sqrt(bound)), bound);
  if (together != 0)  // its formation's members are not in its way
    n = compact(n, [&](double, std::uint32_t, std::uint32_t index) { return together_[index] != together; });
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
    const double* xs = grid_.xs();
    const double* ys = grid_.ys();
    const SlotData* slots = slots_.data();
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
  if (skip != agents_.size()) nearest2 = std::min(nearest2, length_squared(agents_[skip].position - a.position));
  if (!obstacles_.empty()) {
    obstacle_grid_.query(a.position, (a.def.radius + max_obstacle_radius_) * scale, [&](std::uint32_t k) {
      const Obstacle& o = obstacles_[k];
      const double d2 = length_squared(o.position - a.position);
      const double cutoff = (a.def.radius + o.radius) * scale;
      if (beyond_goal(d2, o.radius) || d2 >= cutoff * cutoff) return;
      out.push(o.position, {}, o.radius, true);
      if (with_ids) ids.push_back(o.id);
    });
  }
  return std::min(nearest2, searched2);
}

Vec2 WorldImpl::reciprocal_desire(std::size_t i, Scratch& scratch) const {
  // The horizon: under half a second, the time to close three radii at full speed. Longer, a
  // member crossing a lattice of members standing in place finds every way blocked within it and
  // crawls. The nearest kMaxNeighbours within reach of that, as RVO2 keeps its nearest ten.
  constexpr double kHorizon = 0.45;
  constexpr std::size_t kMaxNeighbours = 16;
  // Each keeps this far from the others' edges: velocity obstacles steer to the very edge of
  // touching, and steering limited by max force falls short of it (measured on grids of 32 to
  // 1,000: without it 4,000 collisions where there are 100 with it, at the same pace).
  constexpr double kGap = 0.5;
  const Agent& a = agents_[i];
  // A critical member leaves the others to get out of its way, but for those it could not stop
  // short of: nearer than the two radii, a unit, and its braking distance at the speed it closes.
  const double accel = a.def.max_force / a.def.mass;
  const std::uint32_t tag = together_[i], move = tag & ~kCritical;
  const bool critical = (tag & kCritical) != 0;
  const double reach = a.def.radius + max_agent_radius_ + 2 * a.def.max_speed * kHorizon;
  std::vector<ReciprocalNeighbour>& near = scratch.reciprocal;
  near.clear();
  grid_.query_points(a.position, reach, [&](std::uint32_t j, Vec2 p, std::uint32_t slot) {
    const double d2 = length_squared(p - a.position);
    if (j == i || d2 > reach * reach) return;
    const SlotData& o = slots_[slot];
    double share = 1;  // others avoid it their own way: it takes all of the avoidance
    if ((together_[j] & ~kCritical) == move) {
      const bool its_critical = (together_[j] & kCritical) != 0;
      if (critical == its_critical) {
        share = 0.5;
      } else if (critical) {
        const double closing = std::max(0.0, dot(a.velocity - o.velocity, p - a.position)) / std::sqrt(std::max(d2, 1e-12));
        const double close = a.def.radius + o.radius + 1 + (accel > 0 ? closing * closing / (2 * accel) : 0.0);
        if (d2 > close * close) return;
        share = 0.5;
      }
    }
    near.push_back({p, o.velocity, o.radius + kGap, share});
  });
  // Speed falls with density, as in a crowd of people (the fundamental diagram of pedestrian
  // flow): with more than kCrowdFree of those it heeds within kCrowdRadii of its radius, a member
  // wishes for that many over their count of its speed, and takes no more than the square root
  // of that share of max speed to avoid the others (room to step aside faster than it walks on).
  // Where the longest ways meet (from a ring, all at its centre at once) ORCA's velocities changed
  // faster than max force could follow: at full speed there, 5,000 members from a ring overlapped
  // by 1.55 units, and 1,000 from a ring at the circle's default spacing by 1.62.
  constexpr double kCrowdRadii = 5;
  constexpr std::size_t kCrowdFree = 6;
  std::size_t crowd = 0;
  const double crowd_reach = kCrowdRadii * a.def.radius;
  for (const ReciprocalNeighbour& n : near) crowd += length_squared(n.position - a.position) < crowd_reach * crowd_reach;
  if (near.size() > kMaxNeighbours) {
    std::nth_element(near.begin(), near.begin() + kMaxNeighbours, near.end(), [&](const ReciprocalNeighbour& x, const ReciprocalNeighbour& y) {
      return length_squared(x.position - a.position) < length_squared(y.position - a.position);
    });
    near.resize(kMaxNeighbours);
  }
  obstacle_grid_.query(a.position, reach + max_obstacle_radius_, [&](std::uint32_t k) {
    const Obstacle& o = obstacles_[k];
    if (length(o.position - a.position) <= reach + o.radius) near.push_back({o.position, {}, o.radius + kGap, 1.0});
  });
  // Velocity obstacles act on velocities: a member standing between another and its goal never
  // moves (nothing comes at it) and the other stops short of it. So, as seed 003 decides dead
  // ahead, the way to the goal goes round the nearest one in it: along the tangent to the disc it
  // must not enter, on the side the way already passes it (the preferred side when dead on).
  Vec2 preferred = desires_[i].velocity;
  const double slow = crowd > kCrowdFree ? static_cast<double>(kCrowdFree) / static_cast<double>(crowd) : 1.0;
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
      const double side = block_across > 0 ? -1.0 : block_across < 0 ? 1.0 : (def_.avoidance.preferred_side == Side::right ? 1.0 : -1.0);
      const double turn = dist > rsum ? std::asin(rsum / dist) : kPi / 2;
      preferred = rotate(rel * (1.0 / dist), turn * side) * length(preferred);
    }
  }
  return reciprocal_velocity(a.position, a.velocity, a.def.radius, preferred, a.def.max_speed * std::sqrt(slow), near, kHorizon, def_.dt,
                             scratch.lines);
}

void WorldImpl::stage_avoidance() {
  cutoff_scale_ = push_cutoff_scale(def_.avoidance);
  // Traces exist before the loop, so workers only look them up.
  traces_.clear();
  for (AgentId id : inspected_)
    if (find(id)) traces_[id];
  // In grid order: consecutive agents are neighbours and share most of their neighbours' data in
  // the caches. Each writes only its own desire (turned in place: from here on desires_[i].velocity
  // is the steered velocity) and trace: the order changes no result. In chunks: the pushes of each
  // agent summed, then the chunk's directions combined at once (combine_batch: several agents to
  // a vector register), the same bits as one agent at a time.
  const bool batched = combines_in_batch(def_.avoidance);
  for_each_range(grid_.size(), [this, batched](std::size_t begin, std::size_t end, Scratch& scratch) {
    constexpr std::size_t kChunk = 64;
    for (std::size_t chunk = begin; chunk < end; chunk += kChunk) {
      scratch.sums.clear();
      scratch.pending.clear();
      for (std::size_t k = chunk; k < std::min(end, chunk + kChunk); ++k) avoid(k, scratch, batched);
      if (scratch.pending.empty()) continue;
      combine_batch(def_.avoidance, scratch.sums);
      for (std::size_t m = 0; m < scratch.pending.size(); ++m) {
        const auto [i, speed] = scratch.pending[m];
        desires_[i].velocity = Vec2{scratch.sums.dir_x[m], scratch.sums.dir_y[m]} * speed;
      }
    }
  });
}

void WorldImpl::avoid(std::size_t k, Scratch& scratch, bool batched) {
  prefetch_later(k);
  const std::size_t i = grid_.index(k);
  const Agent& a = agents_[i];
  const Vec2 desired = desires_[i].velocity;
  const auto traced = traces_.find(a.id);
  if (!together_.empty() && (together_[i] & kReciprocal) && def_.avoidance.mode != AvoidanceMode::none) {
    desires_[i].velocity = reciprocal_desire(i, scratch);
    if (traced != traces_.end()) {  // no pushes: the direction wanted and the one taken
      traced->second.desired_dir = normalized_or_zero(desired);
      traced->second.final_dir = normalized_or_zero(desires_[i].velocity);
    }
    return;
  }
  AvoidanceTrace* trace = traced == traces_.end() ? nullptr : &traced->second;
  if (desired == Vec2{} || def_.avoidance.mode == AvoidanceMode::none) {
    if (trace) avoidance_direction(def_.avoidance, {a.position, a.velocity, a.def.radius, desired}, {}, trace);
    return;
  }
  // Lowered by a millionth before it is rounded to a float (at most 6e-8 up): a bound stays a
  // bound, without a branch or a call per agent.
  desires_[i].clearance2 = static_cast<float>(gather_neighbours(i, scratch, trace != nullptr) * (1 - 1e-6));
  const Mover self{a.position, a.velocity, a.def.radius, desired};
  // Avoidance turns the desire; it keeps the behaviour's speed (seed 000: normalise, then
  // multiply by speed).
  if (trace) {  // the span form, which can trace: the same bits as the batch form
    scratch.neighbours.clear();
    for (std::size_t n = 0; n < scratch.batch.size(); ++n) scratch.neighbours.push_back(scratch.batch.at(n, scratch.ids[n]));
    desires_[i].velocity = avoidance_direction(def_.avoidance, self, scratch.neighbours, trace) * length(desired);
  } else if (batched) {  // finished with the chunk
    scratch.sums.push(avoidance_sums(def_.avoidance, self, scratch.batch));
    scratch.pending.emplace_back(static_cast<std::uint32_t>(i), length(desired));
  } else {
    desires_[i].velocity = avoidance_direction(def_.avoidance, self, scratch.batch) * length(desired);
  }
}

void WorldImpl::stage_integrate() {
  // Each agent reads only its own state and its steered velocity: order-independent. In grid
  // order, so that the grid's copy of the positions is brought up to date as the agents move:
  // the collision stage then finds touching pairs through the same grid, queries widened by the
  // farthest any agent moved, instead of sorting everyone into cells a second time.
  for (Scratch& scratch : scratch_) scratch.moved2 = 0;
  for_each_agent(grid_.size(), [this](std::size_t k, Scratch& scratch) {
    prefetch_later(k);
    const std::size_t i = grid_.index(k);
    Agent& a = agents_[i];
    integrate(a, desires_[i]);
    slots_[k].velocity.x = desires_[i].clearance2;  // for the collision stage, by slot
    scratch.moved2 = std::max(scratch.moved2, length_squared(a.position - grid_.position(k)));
    grid_.move(k, a.position);
  });
  double moved2 = 0;
  for (const Scratch& scratch : scratch_) moved2 = std::max(moved2, scratch.moved2);
  moved_ = std::sqrt(moved2);
}

void WorldImpl::integrate(Agent& a, const Desire& desire) const {
  if (a.pathing == Pathing::no_backtrack && map_) return;  // the walker moves it (stage_walls)
  if (can_stop_dead(a, desire, def_.dt)) {
    a.velocity = {};  // this tick's velocity change, within one tick's braking
    return;
  }
  const Vec2 steered = desire.velocity;  // after avoidance
  a.velocity = a.movement == Movement::kinematic ? kinematic_velocity(a, steered, def_.dt)
                                                 : steer_towards(a.velocity, steered, a.def, def_.dt);
  a.position += a.velocity * def_.dt;  // semi-implicit Euler: the new velocity moves the agent
  confine(a, def_.width, def_.height);
}

void WorldImpl::stage_states() {
  // Each agent writes only its own state and flag (and reads others' positions): on the workers.
  for_each_agent(agents_.size(), [this](std::size_t i, Scratch&) {
    Agent& a = agents_[i];
    const Desire& d = desires_[i];
    if (a.behaviour.kind == BehaviourKind::idle) {
      a.state = MoveState::idle;
      if (a.velocity == Vec2{}) a.collided = false;  // no goal to reach: clear once at rest
      return;
    }
    const double to_goal = d.goal ? length(*d.goal - a.position) : 0.0;
    bool there = d.arriving && d.goal && a.velocity == Vec2{} && to_goal <= a.def.arrive_tolerance;
    const PathState& p = path_of(i);
    if (map_ && a.pathing == Pathing::no_backtrack && p.walker_placed && d.goal)
      there = p.walker.status == WalkerStatus::arrived && p.walker.from == map_->tile_at(*d.goal);  // tile-level
    // A pursuer's goal is the other's centre, which it never reaches: in contact, it has caught it.
    // A guard (react) responding by pursuit is a pursuer too.
    const Behaviour& b = a.behaviour;
    const bool pursuing = b.kind == BehaviourKind::pursue ||
                          (b.kind == BehaviourKind::react && b.phase == Phase::respond && b.response == BehaviourKind::pursue);
    if (pursuing) {
      const Agent* subject = subject_of(a);
      there = subject && length(subject->position - a.position) <= a.def.radius + subject->def.radius + a.def.arrive_tolerance;
    }
    a.state = p.unreachable ? MoveState::unreachable : there ? MoveState::arrived : MoveState::moving;
    // Seed 003: red until they reach their target (a seeker reaches it by touching it).
    if (there || (d.goal && !d.arriving && to_goal <= a.def.radius)) a.collided = false;
  });
}

}  // namespace herd::sim
