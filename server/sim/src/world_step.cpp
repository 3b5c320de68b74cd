// The World's step: a script of stages, each a loop over the agent array.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "geometry.hpp"
#include "steering.hpp"
#include "visibility.hpp"
#include "world_impl.hpp"

namespace herd::sim {
namespace {

// Keeps an agent's disc inside the world; a wall stops the velocity component into it.
void confine(Agent& a, double width, double height) {
  const double r = std::min({a.def.radius, width / 2, height / 2});
  if (a.position.x < r) {
    a.position.x = r;
    a.velocity.x = std::max(a.velocity.x, 0.0);
  }
  if (a.position.x > width - r) {
    a.position.x = width - r;
    a.velocity.x = std::min(a.velocity.x, 0.0);
  }
  if (a.position.y < r) {
    a.position.y = r;
    a.velocity.y = std::max(a.velocity.y, 0.0);
  }
  if (a.position.y > height - r) {
    a.position.y = height - r;
    a.velocity.y = std::min(a.velocity.y, 0.0);
  }
}

// An arriving agent within tolerance of its goal and slow enough that one tick's braking stops it
// dead has arrived: it stops there instead of creeping the last fraction of a unit.
// Not while its avoidance moves it aside (Desire::aside): out of someone's way first.
bool can_stop_dead(const Agent& a, const Desire& d, double dt) {
  return d.arriving && !d.aside && d.goal &&
         length(*d.goal - a.position) <= a.def.arrive_tolerance &&
         length(a.velocity) <= a.def.max_force / a.def.mass * dt;
}

// Kinematic motion (as the anti-gravity write-ups have it: "multiply the direction vector by
// speed"): the heading follows the desire at once; only the speed changes, at most
// max_force/mass * dt per tick.
Vec2 kinematic_velocity(const Agent& a, Vec2 desired, double dt) {
  const double speed = length(a.velocity);
  const double want = std::min(length(desired), a.def.max_speed);
  const double step = a.def.max_force / a.def.mass * dt;
  const double next = want > speed ? std::min(want, speed + step) : std::max(want, speed - step);
  const Vec2 heading =
      desired == Vec2{} ? normalized_or_zero(a.velocity) : normalized_or_zero(desired);
  return heading * next;
}

}  // namespace

const Agent* WorldImpl::subject_of(const Agent& a) const {
  return a.behaviour.agent == kNoAgent ? nullptr : find(a.behaviour.agent);
}

void WorldImpl::step() {
  const std::uint64_t start = runner_.clock ? runner_.clock() : 0;
  run_stage(Stage::sources, &WorldImpl::stage_sources);
  begin_step();
  run_stage(Stage::assignments, &WorldImpl::stage_assignments);
  run_stage(Stage::grid, &WorldImpl::stage_grid);
  run_stage(Stage::phases, &WorldImpl::stage_phases);
  run_stage(Stage::desires, &WorldImpl::stage_desires);
  run_stage(Stage::pathing, &WorldImpl::stage_pathing);
  run_stage(Stage::pace, &WorldImpl::stage_pace);
  run_stage(Stage::avoidance, &WorldImpl::stage_avoidance);
  run_stage(Stage::integrate, &WorldImpl::stage_integrate);
  run_stage(Stage::collisions, &WorldImpl::stage_collisions);
  run_stage(Stage::walls, &WorldImpl::stage_walls);
  run_stage(Stage::states, &WorldImpl::stage_states);  // the stall timers last (update_stalls)
  run_stage(Stage::formations, &WorldImpl::stage_formations);
  run_stage(Stage::combat, &WorldImpl::stage_combat);
  run_stage(Stage::exits, &WorldImpl::stage_exits);
  ++tick_;
  measurements_.observe(agents_, tick_, def_.dt);  // reads the agents only
  runner_.profile.step_ns = runner_.clock ? runner_.clock() - start : 0;
}

void WorldImpl::run_stage(Stage stage, void (WorldImpl::*body)()) {
  if (!runner_.clock) {
    (this->*body)();
    return;
  }
  const std::uint64_t start = runner_.clock();
  (this->*body)();
  runner_.profile.stage_ns[static_cast<std::size_t>(stage)] = runner_.clock() - start;
}

void WorldImpl::begin_step() {
  events_.clear();
  contacts_.hit_subject.resize(agents_.size(), 0);
  desires_.resize(agents_.size());
  stalls_.grow(agents_.size());
  if (neighbours_.rules_stale) count_rules();
  steering_.prune(agents_);     // when a command may have left entries for agents doing otherwise
  walls_.note_starts(agents_);  // where each move through the walls begins (nothing without)
}

void WorldImpl::count_rules() {
  neighbours_.rules = {};
  if (!agents_.empty()) {
    neighbours_.rules.min_priority = AgentDefLimits::kMaxPriority;
    neighbours_.rules.max_priority = 0;
  }
  any_armed_ = false;
  for (const Agent& a : agents_) {
    any_armed_ = any_armed_ || a.def.weapon.armed();
    neighbours_.rules.masked = neighbours_.rules.masked || a.def.mask != ~std::uint32_t{0};
    neighbours_.rules.min_priority = std::min(neighbours_.rules.min_priority, a.def.priority);
    neighbours_.rules.max_priority = std::max(neighbours_.rules.max_priority, a.def.priority);
  }
  neighbours_.rules_stale = false;
}

// A team's agent acting on another team's agent that the team no longer sees keeps only where it
// last saw it, as an RTS order on a unit that enters the fog becomes a move to its last seen
// place: pursuing, seeking, arriving at, following or attacking it, it arrives there; fleeing or
// evading it, it flees from there; reacting to or guarding against it, or engaged in an
// attack-move, it lets it go. So no order tracks an enemy through the fog, and no snapshot's
// target tells where an unseen enemy is.
void WorldImpl::lose_unseen_subjects() {
  runner_.team_sight.clear();
  const bool at_odds = std::any_of(agents_.begin(), agents_.end(), [](const Agent& a) {
    return a.team != 0 &&
           (a.behaviour.agent != kNoAgent || a.behaviour.kind == BehaviourKind::attack_move);
  });
  if (!at_odds) return;
  seen_by(runner_.team_sight);
  for (Agent& a : agents_) {
    Behaviour& b = a.behaviour;
    if (a.team == 0 || b.agent == kNoAgent) continue;
    const Agent* s = find(b.agent);
    if (!s || s->team == a.team) continue;
    if ((runner_.team_sight[static_cast<std::size_t>(s - agents_.data())] >> a.team & 1) != 0)
      continue;
    const Vec2 last_seen = s->position;
    if (has_steering_state(b.kind)) steering_.note_command();  // its follow state is dropped
    b.agent = kNoAgent;
    switch (b.kind) {
      case BehaviourKind::pursue:
      case BehaviourKind::seek:
      case BehaviourKind::arrive:
      case BehaviourKind::follow:
      case BehaviourKind::attack:
        b.kind = BehaviourKind::arrive;
        b.point = last_seen;
        b.phase = Phase::none;
        break;
      case BehaviourKind::flee:
      case BehaviourKind::evade:
        b.kind = BehaviourKind::flee;
        b.point = last_seen;
        b.phase = Phase::none;
        break;
      default:  // react, guard, attack_move's engagement: the subject let go
        break;
    }
  }
}

void WorldImpl::stage_phases() {
  lose_unseen_subjects();
  // Attack, react and patrol switch on what happened last tick (a hit, arriving) and on distance.
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    Agent& a = agents_[i];
    // A patrol by order turns at its route's points (stage_orders).
    if (a.behaviour.kind != BehaviourKind::attack && a.behaviour.kind != BehaviourKind::react &&
        (a.behaviour.kind != BehaviourKind::patrol || a.order != 0))
      continue;
    const bool at_home = a.state == MoveState::arrived;
    update_phase(a, subject_of(a), contacts_.hit_subject[i] != 0, at_home);
  }
  run_stage(Stage::phases_orders, &WorldImpl::stage_orders);
}

void WorldImpl::stage_grid() {
  // The radii's range, on the workers (reading every record, serially, cost a millisecond at
  // 100,000 agents); min and max give one answer in any order.
  for (Scratch& scratch : runner_.scratch) {
    scratch.min_radius = HUGE_VAL;
    scratch.max_radius = 0;
  }
  for_each_agent(agents_.size(), [this](std::size_t i, Scratch& scratch) {
    scratch.min_radius = std::min(scratch.min_radius, agents_[i].def.radius);
    scratch.max_radius = std::max(scratch.max_radius, agents_[i].def.radius);
  });
  neighbours_.max_agent_radius = 0;
  double min_radius = HUGE_VAL;
  for (const Scratch& scratch : runner_.scratch) {
    neighbours_.max_agent_radius = std::max(neighbours_.max_agent_radius, scratch.max_radius);
    min_radius = std::min(min_radius, scratch.min_radius);
  }
  neighbours_.uniform_radius = min_radius == neighbours_.max_agent_radius;
  // Cells as wide as the reach of the strongest typical push: a query spans two or three rows of
  // two or three cells. Smaller cells fit the disc better but cost more rows, each a few
  // branches and a square root: measured, the step is fastest here.
  const double reach = push_cutoff(def_.avoidance, 2 * neighbours_.max_agent_radius);
  const double cell = SpatialGrid::cell_size_for(agents_.size(), def_.width, def_.height,
                                                 std::max(reach, 2 * neighbours_.max_agent_radius));
  neighbours_.grid.rebuild(
      agents_.size(), [this](std::size_t i) { return agents_[i].position; }, def_.width,
      def_.height, cell);
  neighbours_.slots.resize(agents_.size());
  for_each_agent(neighbours_.slots.size(), [this](std::size_t k, Scratch&) {
    const Agent& a = agents_[neighbours_.grid.index(k)];
    neighbours_.slots[k] = {a.velocity, a.def.radius};
  });
  if (neighbours_.rules.any()) {
    neighbours_.slot_rules.resize(agents_.size());
    for_each_agent(neighbours_.slot_rules.size(), [this](std::size_t k, Scratch&) {
      const Agent& a = agents_[neighbours_.grid.index(k)];
      neighbours_.slot_rules[k] = {a.def.layer, a.def.priority};
    });
  }
  if (neighbours_.obstacle_grid_version != obstacles_.version) {  // obstacles rarely change
    neighbours_.obstacle_grid_version = obstacles_.version;
    neighbours_.obstacle_index.rebuild(obstacles_.items, def_.width, def_.height);
  }
}

std::size_t WorldImpl::agent_memory_bytes() const {
  auto bytes = [](const auto& v) {
    return v.capacity() * sizeof(typename std::decay_t<decltype(v)>::value_type);
  };
  std::size_t total = bytes(agents_) + bytes(desires_) + bytes(neighbours_.slots) +
                      bytes(neighbours_.clearance2) + bytes(neighbours_.slot_rules) +
                      bytes(contacts_.hit_subject) + bytes(contacts_.pairs) +
                      orders_.memory_bytes() + bytes(contacts_.touching) +
                      bytes(contacts_.touching_next) + pathing_.agent_memory_bytes() +
                      neighbours_.grid.memory_bytes() + neighbours_.near_grid.memory_bytes() +
                      neighbours_.obstacle_index.memory_bytes() + stalls_.memory_bytes();
  for (const Scratch& s : runner_.scratch)
    total += bytes(s.neighbours) + bytes(s.ids) + s.batch.memory_bytes() + s.found.memory_bytes() +
             bytes(s.order) + bytes(s.pairs) + s.sums.memory_bytes() + bytes(s.pending);
  return total;
}

void WorldImpl::set_executor(Executor* executor) {
  runner_.executor = executor;
  runner_.scratch.resize(executor ? std::max<std::size_t>(executor->workers(), 1) : 1);
}

void WorldImpl::stage_desires() {
  const SteeringService::Scene scene = steering_scene();
  for_each_agent(agents_.size(), [this, &scene](std::size_t i, Scratch&) {
    desires_[i] = has_steering_state(agents_[i].behaviour.kind)
                      ? steering_.desire(scene, i)
                      : desire(agents_[i], subject_of(agents_[i]), def_.dt);
  });
}

void WorldImpl::pace_queues() {
  if (!steering_.begin_queues(agents_)) return;
  // Every queuer's way first, then each one's braking behind the one ahead (which reads the
  // others' ways): each pass writes only its own agent's entry.
  for_each_agent(agents_.size(), [this](std::size_t i, Scratch&) {
    steering_.note_way(i, agents_[i], desires_[i]);
  });
  const SteeringService::Scene scene = steering_scene();
  for_each_agent(agents_.size(),
                 [&](std::size_t i, Scratch&) { steering_.brake(scene, i, desires_[i]); });
}

void WorldImpl::stage_avoidance() {
  neighbours_.cutoff_scale = push_cutoff_scale(def_.avoidance);
  // Members moving reciprocally heed their nearest few, far nearer than the avoidance grid's
  // cells are wide (a cell spans the strongest push's reach): they look them up in a grid of
  // their own, cells about the crowd's mean spacing, so a look visits tens, not hundreds.
  // In orca and cfsm modes every agent looks them up so.
  const std::span<const std::uint32_t> tags_now = together();
  if (def_.avoidance.mode == AvoidanceMode::orca || def_.avoidance.mode == AvoidanceMode::cfsm ||
      std::any_of(tags_now.begin(), tags_now.end(),
                  [](std::uint32_t t) { return (t & FormationService::kReciprocal) != 0; }))
    neighbours_.near_grid
        .rebuild(  // over the avoidance grid's slots, so a member's data is neighbours_.slots[item]
            neighbours_.grid.size(), [this](std::size_t k) { return neighbours_.grid.position(k); },
            def_.width, def_.height,
            SpatialGrid::cell_size_for(agents_.size(), def_.width, def_.height,
                                       2 * neighbours_.max_agent_radius));
  // Traces exist before the loop, so workers only look them up.
  runner_.traces.clear();
  for (AgentId id : runner_.inspected)
    if (find(id)) runner_.traces[id];
  // In grid order: consecutive agents are neighbours and share most of their neighbours' data in
  // the caches. Each writes only its own desire (turned in place: from here on desires_[i].velocity
  // is the steered velocity) and trace: the order changes no result. In chunks: the pushes of each
  // agent summed, then the chunk's directions combined at once (combine_batch: several agents to
  // a vector register), the same bits as one agent at a time.
  const bool batched = combines_in_batch(def_.avoidance);
  neighbours_.clearance2.resize(agents_.size());
  if (def_.avoidance.mode == AvoidanceMode::cfsm)
    neighbours_.takes_place.assign(agents_.size(), 0);
  else
    neighbours_.takes_place.clear();
  for_each_range(neighbours_.grid.size(), [this, batched](std::size_t begin, std::size_t end,
                                                          Scratch& scratch) {
    constexpr std::size_t kChunk = 64;
    for (std::size_t chunk = begin; chunk < end; chunk += kChunk) {
      scratch.sums.clear();
      scratch.pending.clear();
      for (std::size_t k = chunk; k < std::min(end, chunk + kChunk); ++k)
        avoid(k, scratch, batched);
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
  const std::size_t i = neighbours_.grid.index(k);
  const Agent& a = agents_[i];
  Vec2 desired = desires_[i].velocity;
  neighbours_.clearance2[k] = 0;  // not known, unless its neighbours are gathered below
  const auto traced = runner_.traces.find(a.id);
  const std::span<const std::uint32_t> tags = together();
  const AvoidanceMode mode = def_.avoidance.mode;
  // The collision-free speed model: every agent, formation members too (a pedestrian crowd).
  if (mode == AvoidanceMode::cfsm) {
    desires_[i].aside = false;
    desires_[i].velocity = headway_desire(i, scratch);
    if (traced != runner_.traces.end()) {  // no pushes: the direction wanted and the one taken
      traced->second.desired_dir = normalized_or_zero(desired);
      traced->second.final_dir = normalized_or_zero(desires_[i].velocity);
    }
    return;
  }
  // Orca mode: every agent, moving or standing (RVO2 runs every agent, its preferred velocity
  // zero when it has nowhere to go, so that standing ones give way too).
  const bool member =
      !tags.empty() && (tags[i] & FormationService::kReciprocal) && mode != AvoidanceMode::none;
  if (mode == AvoidanceMode::orca || member) {
    bool aside = false;
    desires_[i].velocity = reciprocal_desire(i, scratch, aside);
    desires_[i].aside = aside && mode == AvoidanceMode::orca;
    if (traced != runner_.traces.end()) {  // no pushes: the direction wanted and the one taken
      traced->second.desired_dir = normalized_or_zero(desired);
      traced->second.final_dir = normalized_or_zero(desires_[i].velocity);
    }
    return;
  }
  // The anti-gravity modes (circle, cardioid): one standing (wanting no more speed than one tick's
  // braking takes away: an idle agent, one arrived or holding) steps out of the way of a more
  // important agent coming at it, until it is clear: that is its desire, which it avoids the others
  // on as any mover does.
  if (neighbours_.rules.ranked() && a.def.priority > neighbours_.rules.min_priority &&
      mode != AvoidanceMode::none) {
    const double still = a.def.max_force / a.def.mass * def_.dt;
    if (length_squared(desired) <= still * still) {
      if (const Vec2 aside = yield_velocity(i, scratch); aside != Vec2{}) {
        desired = desires_[i].velocity = aside;
        desires_[i].aside = true;
      }
    }
  }
  AvoidanceTrace* trace = traced == runner_.traces.end() ? nullptr : &traced->second;
  if (desired == Vec2{} || mode == AvoidanceMode::none) {
    if (trace)
      avoidance_direction(def_.avoidance, {a.position, a.velocity, a.def.radius, desired}, {},
                          trace);
    return;
  }
  // Lowered by a millionth before it is rounded to a float (at most 6e-8 up): a bound stays a
  // bound, without a branch or a call per agent.
  neighbours_.clearance2[k] =
      static_cast<float>(gather_neighbours(i, scratch, trace != nullptr) * (1 - 1e-6));
  const Mover self{a.position, a.velocity, a.def.radius, desired};
  // Avoidance turns the desire; it keeps the behaviour's speed (as the anti-gravity push is
  // published: normalise, then multiply by speed).
  if (trace) {  // the span form, which can trace: the same bits as the batch form
    scratch.neighbours.clear();
    for (std::size_t n = 0; n < scratch.batch.size(); ++n)
      scratch.neighbours.push_back(scratch.batch.at(n, scratch.ids[n]));
    desires_[i].velocity =
        avoidance_direction(def_.avoidance, self, scratch.neighbours, trace) * length(desired);
  } else if (batched) {  // finished with the chunk
    scratch.sums.push(avoidance_sums(def_.avoidance, self, scratch.batch));
    scratch.pending.emplace_back(static_cast<std::uint32_t>(i), length(desired));
  } else {
    desires_[i].velocity =
        avoidance_direction(def_.avoidance, self, scratch.batch) * length(desired);
  }
}

void WorldImpl::stage_integrate() {
  // Each agent reads only its own state and its steered velocity: order-independent. In grid
  // order, so that the grid's copy of the positions is brought up to date as the agents move:
  // the collision stage then finds touching pairs through the same grid, queries widened by the
  // farthest any agent moved, instead of sorting everyone into cells a second time.
  for (Scratch& scratch : runner_.scratch) scratch.moved2 = 0;
  // Where each started from, for the orders' movers' sweep (keep_off_stopped).
  const std::span<Vec2> before = orders_.starts(agents_.size());
  const bool sweep = !before.empty();
  for_each_agent(neighbours_.grid.size(), [this, sweep, before](std::size_t k, Scratch& scratch) {
    prefetch_later(k);
    const std::size_t i = neighbours_.grid.index(k);
    Agent& a = agents_[i];
    if (sweep) before[i] = a.position;
    integrate(a, desires_[i]);
    scratch.moved2 =
        std::max(scratch.moved2, length_squared(a.position - neighbours_.grid.position(k)));
    neighbours_.grid.move(k, a.position);
  });
  double moved2 = 0;
  for (const Scratch& scratch : runner_.scratch) moved2 = std::max(moved2, scratch.moved2);
  neighbours_.moved = std::sqrt(moved2);
  run_stage(Stage::integrate_keep_off, &WorldImpl::keep_off_stopped);
}

void WorldImpl::integrate(Agent& a, const Desire& desire) const {
  if (a.pathing == Pathing::no_backtrack && map_) return;  // the walker moves it (stage_walls)
  if (can_stop_dead(a, desire, def_.dt)) {
    a.velocity = {};  // this tick's velocity change, within one tick's braking
    return;
  }
  const Vec2 steered = desire.velocity;  // after avoidance
  // The collision-free speed model is of first order, as it is published and JuPedSim runs it:
  // the velocity it gives is the velocity taken, braking included, so the time gap it keeps is
  // the time gap it walks.
  if (def_.avoidance.mode == AvoidanceMode::cfsm) {
    a.velocity = clamp_length(steered, a.def.max_speed);
    a.position += a.velocity * def_.dt;
    confine(a, def_.width, def_.height);
    return;
  }
  a.velocity = a.movement == Movement::kinematic
                   ? kinematic_velocity(a, steered, def_.dt)
                   : steer_towards(a.velocity, steered, a.def, def_.dt);
  a.position += a.velocity * def_.dt;  // semi-implicit Euler: the new velocity moves the agent
  confine(a, def_.width, def_.height);
}

void WorldImpl::stage_states() {
  // The agents under an order still on their way: those that arrive this tick with nothing
  // queued after have done their order (an event, for their team's players).
  std::vector<std::uint32_t>& on_their_way = on_their_way_;
  on_their_way.clear();
  if (orders_.any_given())
    for (std::size_t i = 0; i < agents_.size(); ++i)
      if (agents_[i].order != 0 && agents_[i].state == MoveState::moving)
        on_their_way.push_back(static_cast<std::uint32_t>(i));
  // Each agent writes only its own state and flag (and reads others' positions): on the workers.
  for_each_agent(agents_.size(), [this](std::size_t i, Scratch&) {
    Agent& a = agents_[i];
    const Desire& d = desires_[i];
    if (a.behaviour.kind == BehaviourKind::idle) {
      a.state = MoveState::idle;
      if (a.velocity == Vec2{}) a.collided = false;  // no goal to reach: clear once at rest
      return;
    }
    // Settled under a group order and standing still, but pushed off its spot (wedged among
    // others at rest, whose overlap is shared out): it holds where it was pushed to.
    if (a.behaviour.settle == Settle::settled && a.velocity == Vec2{} && d.arriving)
      a.behaviour.point = a.position;
    // Beside its goal, its way there blocked by those standing round it: it takes the place where
    // it stands, as one does whose place is taken (cfsm mode).
    if (!neighbours_.takes_place.empty() && neighbours_.takes_place[i] && d.arriving &&
        a.velocity == Vec2{})
      a.behaviour.point = a.position;
    const double to_goal = d.goal ? length(*d.goal - a.position) : 0.0;
    bool there = d.arriving && d.goal && a.velocity == Vec2{} &&
                 (to_goal <= a.def.arrive_tolerance || a.behaviour.point == a.position);
    const PathState& p = path_of(i);
    if (map_ && a.pathing == Pathing::no_backtrack && p.walker_placed && d.goal)
      there = p.walker.status == WalkerStatus::arrived &&
              p.walker.from == map_->tile_at(*d.goal);  // tile-level
    // A pursuer's goal is the other's centre, which it never reaches: in contact, it has caught it.
    // A guard (react) responding by pursuit is a pursuer too.
    if (acting_traits(a.behaviour).catches_by_contact) {
      const Agent* subject = subject_of(a);
      there = subject && length(subject->position - a.position) <=
                             a.def.radius + subject->def.radius + a.def.arrive_tolerance;
    }
    a.state = p.unreachable ? MoveState::unreachable
              : there       ? MoveState::arrived
                            : MoveState::moving;
    // The collided mark: red until they reach their target (a seeker reaches it by touching it).
    if (there || (d.goal && !d.arriving && to_goal <= a.def.radius)) a.collided = false;
  });
  for (const std::uint32_t i : on_their_way) {
    const Agent& a = agents_[i];
    if (a.state != MoveState::arrived || a.behaviour.kind == BehaviourKind::patrol ||
        orders_.busy(a))
      continue;
    GameEvent e;
    e.kind = EventKind::order_done;
    e.agent = a.id;
    e.team = a.team;
    e.at = a.position;
    e.tick = tick_ + 1;
    e.seen = a.team != 0 ? std::uint64_t{1} << a.team : 0;  // its own team's news
    events_.push_back(e);
  }
  // Timed with the states, whose result it reads: one speed test per agent, mostly.
  update_stalls();
}

void WorldImpl::update_stalls() {
  stalls_.update({agents_, desires_, neighbours_.grid, neighbours_.moved,
                  neighbours_.max_agent_radius, def_.dt});
}

}  // namespace herd::sim
