// herd::sim::WorldImpl — the world's state and the step's machinery behind World's pointer
// (herd/sim/world.hpp says what each public call does). Private to the sim: installed headers do
// not include it; the sim's tests and benchmarks may.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "agent_index.hpp"
#include "astar.hpp"
#include "avoidance.hpp"
#include "behaviour.hpp"
#include "collision.hpp"
#include "command_failure.hpp"
#include "contacts.hpp"
#include "flow_field.hpp"
#include "formation_service.hpp"
#include "grid_walker.hpp"
#include "herd/sim/agent.hpp"
#include "herd/sim/commands.hpp"
#include "herd/sim/executor.hpp"
#include "herd/sim/tile_map.hpp"
#include "herd/sim/world.hpp"
#include "herd/sim/world_def.hpp"
#include "measurements.hpp"
#include "neighbour_scan.hpp"
#include "obstacle_index.hpp"
#include "obstacle_set.hpp"
#include "order_service.hpp"
#include "path_service.hpp"
#include "proximity.hpp"
#include "reciprocal.hpp"
#include "rng.hpp"
#include "sources.hpp"
#include "spatial_grid.hpp"
#include "stalls.hpp"
#include "steering_service.hpp"
#include "step_runner.hpp"
#include "walls.hpp"

namespace herd::sim {

class WorldImpl {
 public:
  explicit WorldImpl(const WorldDef& def);

  // World's calls (herd/sim/world.hpp).
  CommandOutcome apply(const Command& command, CommandOrigin origin = {});
  CommandOutcome authorize(Command& command, std::uint8_t team,
                           const TeamRules& rules) const;  // world_authority.cpp
  CommandOutcome authorize_spawn(Spawn& spawn, std::uint8_t team, const TeamRules& rules) const;
  void step();
  void set_executor(Executor* executor);
  void set_clock(StepClock clock) { runner_.clock = clock; }
  const StepProfile& profile() const { return runner_.profile; }
  const std::vector<CollisionEvent>& collisions() const { return contacts_.events; }
  const std::vector<GameEvent>& events() const { return events_; }
  // Fog of war as World::seen_by: what each team sees, its sight blocked by walls, blocked tiles
  // and obstacles (world_sight.cpp).
  void seen_by(std::vector<std::uint64_t>& out) const;
  void points_seen(std::uint8_t team, std::span<const Vec2> points,
                   std::vector<std::uint8_t>& out) const;
  void set_inspected(std::vector<AgentId> ids);
  const std::vector<AgentId>& inspected() const { return runner_.inspected; }
  const AvoidanceTrace* trace(AgentId id) const;
  const WorldDef& def() const { return def_; }
  std::uint64_t tick() const { return tick_; }
  double time() const { return static_cast<double>(tick_) * def_.dt; }
  std::span<const Agent> agents() const { return agents_; }
  std::span<const Obstacle> obstacles() const { return obstacles_.items; }
  const Agent* find(AgentId id) const;
  std::span<const Desire> desires() const { return desires_; }
  std::span<const Stall> stalls() const { return stalls_.stalls(); }
  const std::array<std::uint32_t, kStallReasonCount>& stalled_by_reason() const {
    return stalls_.counts();
  }
  std::uint64_t obstacles_version() const { return obstacles_.version; }
  const TileMap* map() const { return map_ ? &*map_ : nullptr; }
  std::uint64_t map_version() const { return map_version_; }
  std::span<const FormationRecord> formations() const { return formations_.records(); }
  std::uint64_t assignment_work_pending() const { return formations_.assignment_work_pending(); }
  std::size_t assignments_pending() const { return formations_.assignments_pending(); }
  std::span<const PathState> paths() const { return pathing_.paths(); }
  std::span<const Measurement> measurements() const { return measurements_.items(); }
  std::uint64_t measurements_version() const { return measurements_.version(); }
  std::span<const Source> sources() const { return sources_.sources(); }
  std::span<const Exit> exits() const { return sources_.exits(); }
  std::uint64_t sources_version() const { return sources_.version(); }
  std::span<const Wall> walls() const { return walls_.items(); }
  std::uint64_t walls_version() const { return walls_.version(); }
  PathQueueStats path_queue_stats() const { return pathing_.stats(); }
  std::size_t agent_memory_bytes() const;
  std::uint64_t state_hash() const;
  std::string save_checkpoint() const;  // in the newest format
  // In format `version` (from 2): what a server of that format wrote, for tests that read it.
  std::string save_checkpoint(std::uint32_t version) const;
  static std::variant<WorldImpl, std::string> load_checkpoint(std::string_view data);
  // The checkpoint's layout after the world's definition, run by saving and by loading
  // (world_checkpoint.cpp); what is corrupt, or empty.
  template <CheckpointStream S>
  static std::string serialize_state(S& s, WorldImpl& world);
  // A loaded checkpoint's agents and obstacles against the commands' limits: why not, or empty.
  std::string loaded_records_invalid() const;

  static constexpr std::size_t kParallelMinAgents = World::kParallelMinAgents;
  static constexpr std::size_t kMaxInspected = World::kMaxInspected;
  static constexpr std::size_t kMaxOptimalAssignment = World::kMaxOptimalAssignment;
  static constexpr std::size_t kMaxImmediateAssignment = World::kMaxImmediateAssignment;

 private:
  // Commands (world_commands.cpp; form and demo hand on to the formations' part).
  CommandOutcome apply_set_target(const SetTarget& cmd);
  CommandOutcome apply_set_behaviour(const SetBehaviour& cmd);
  CommandOutcome apply_set_movement(const SetMovement& cmd);
  CommandOutcome apply_spawn(const Spawn& cmd);
  CommandOutcome apply_add_obstacle(const AddObstacle& cmd);
  CommandOutcome apply_remove_obstacle(const RemoveObstacle& cmd);
  CommandOutcome apply_set_avoidance(const SetAvoidance& cmd);
  CommandOutcome apply_load_map(const LoadMap& cmd);
  CommandOutcome apply_clear_map();
  CommandOutcome apply_set_tiles(const SetTiles& cmd);
  CommandOutcome apply_set_pathing(const SetPathing& cmd);
  CommandOutcome apply_set_group(const SetGroup& cmd);
  CommandOutcome apply_form(const Form& cmd);
  CommandOutcome apply_demo(const Demo& cmd);
  CommandOutcome apply_remove(const Remove& cmd);
  CommandOutcome apply_stop(const Stop& cmd);
  CommandOutcome apply_add_measurement(const AddMeasurement& cmd);
  CommandOutcome apply_remove_measurement(const RemoveMeasurement& cmd);
  // Sources and exits (world_sources.cpp).
  CommandOutcome apply_add_source(const AddSource& cmd);
  CommandOutcome apply_remove_source(const RemoveSource& cmd);
  CommandOutcome apply_add_exit(const AddExit& cmd);
  CommandOutcome apply_remove_exit(const RemoveExit& cmd);
  // A source's or exit's rectangle: inside the world, width and height above 0.
  CommandOutcome check_rect(const char* what, Vec2 min, Vec2 max) const;
  bool has_walkable_tile(Vec2 min, Vec2 max) const;     // some tile under the rectangle (a map)
  AgentDef template_def(const AgentTemplate& t) const;  // the world's defaults, overridden
  Agent make_agent(const AgentTemplate& t, Vec2 position);
  // What a disc placed in a source's rectangle could overlap, by index.
  struct Nearby {
    std::vector<std::size_t> agents, obstacles;
  };
  // A free point for a disc of `radius` in source s's rectangle, from at most kPlacementTries
  // seeded draws; none when every draw was on a blocked tile or overlapping.
  std::optional<Vec2> place(const Source& s, double radius, const Nearby& near);
  // The step's first stage: each source's agents due by this tick, made where there is room.
  void stage_sources();
  // The step's last stage: the agents whose centre is inside an exit, removed and counted.
  void stage_exits();
  // The stage before the exits (world_combat.cpp): armed agents hit the enemy they engage, or a
  // standing one the nearest enemy within reach; the dead are removed.
  void stage_combat();
  // The index of the enemy armed agent i hits this tick, if one is within its reach; kNoTarget
  // for none.
  static constexpr std::size_t kNoTarget = ~std::size_t{0};
  std::size_t combat_target(std::size_t i) const;
  // Removes the agents at `indices` (ascending, distinct), as the remove command does.
  void remove_agents(const std::vector<std::size_t>& indices);
  CommandOutcome apply_add_wall(const AddWall& cmd);  // world_walls.cpp
  CommandOutcome apply_remove_wall(const RemoveWall& cmd);

  // Orders (world_orders.cpp): the commands; the orders and their stages are a part with its own
  // state (order_service.hpp).
  static constexpr double kClumpSpacing = 3;  // radii between neighbours of a clump (spread keep)
  // Each agent's goal for an order to `point` from `from` (parallel to indices).
  std::vector<Vec2> spread_goals(const std::vector<std::size_t>& indices,
                                 const std::vector<Vec2>& from, Vec2 point, Spread spread,
                                 double spacing, bool& converge) const;

 public:
  // The points agent `id` will go to after its current goal (snapshots' `waypoints`).
  std::vector<Vec2> upcoming(AgentId id) const { return orders_.upcoming(id); }
  bool has_orders() const { return orders_.any_kept(); }

 private:
  // What the formations' part reads and changes of the world.
  FormationService::Scene formation_scene() {
    return {agents_, def_, map(), obstacles_.items, neighbours_.obstacle_index, obstacles_.version};
  }
  void stage_assignments() { formations_.serve_assignments(formation_scene()); }
  // What the orders' part reads and changes of the world.
  OrderService::Scene order_scene() {
    return {agents_,           def_, map(), neighbours_.grid, neighbours_.max_agent_radius,
            runner_.team_sight};
  }
  void stage_orders() { orders_.decide(order_scene(), contacts_.hit_subject); }
  // Pacing, part by part (each a sub-stage, timed): formations, group orders, flocks, queues.
  void stage_pace() {
    run_stage(Stage::pace_formations, &WorldImpl::pace_formations);
    run_stage(Stage::pace_orders, &WorldImpl::pace_orders);
    run_stage(Stage::pace_flocks, &WorldImpl::pace_flocks);
    run_stage(Stage::pace_queues, &WorldImpl::pace_queues);
  }
  void pace_formations() { formations_.pace(formation_scene(), desires_); }
  void pace_orders() {
    orders_.pace(order_scene(), formations_.together(), desires_, neighbours_.tags);
  }
  void pace_flocks() { steering_.tag(agents_, formations_.together(), neighbours_.tags); }
  void keep_off_stopped() { orders_.keep_off_stopped(order_scene(), neighbours_.moved); }
  // This tick's tags for the avoidance stage: the formations', and the group orders'.
  std::span<const std::uint32_t> together() const {
    return neighbours_.tags.empty() ? formations_.together()
                                    : std::span<const std::uint32_t>(neighbours_.tags);
  }
  void stage_formations() { formations_.update(formation_scene()); }
  // A goal point for the selected agents: on a walkable tile and reachable by their pathing.
  CommandOutcome check_reachable(Vec2 goal, const std::vector<std::size_t>& indices);
  bool select(const Selection& sel, std::vector<std::size_t>& indices, CommandOutcome& out) const;
  // The simple commands on a selection: apply(agent, index) to each, counted in `affected`.
  template <class Apply>
  CommandOutcome for_each_selected(const Selection& sel, Apply&& apply) {
    CommandOutcome out;
    std::vector<std::size_t> indices;
    if (!select(sel, indices, out)) return out;
    for (std::size_t i : indices) apply(agents_[i], i);
    out.affected = static_cast<std::uint32_t>(indices.size());
    return out;
  }
  bool inside(Vec2 p) const;
  Agent make_agent(const SpawnAgent& spec);
  std::size_t index_of(AgentId id) const {  // agents_.size() when absent
    return herd::sim::index_of(agents_, id);
  }

  // Stages of step() (world_step.cpp).
  // Keeps the per-agent arrays parallel to the agents after commands added or removed some (at
  // the start of a step, so that a run of spawns grows them once).
  void begin_step();
  // Runs one stage or sub-stage, timed when the host lent a clock.
  void run_stage(Stage stage, void (WorldImpl::*body)());
  // Applies a command without stamping its tick or resizing (apply() does both).
  CommandOutcome dispatch(const Command& command);
  void stage_phases();
  void lose_unseen_subjects();
  void stage_grid();
  void stage_desires();
  void stage_avoidance();
  void stage_pathing();
  void stage_walls();
  void keep_out_of_tiles();  // stage_walls' part for the tile map
  void hold_at_walls();      // and for the walls (world_walls.cpp)
  void stage_integrate();
  void integrate(Agent& a, const Desire& desire) const;  // one agent's velocity and position
  // Agents in grid order lie all over the agent array: the stages that visit them so ask, at
  // slot k, for the record and desire of the agent kPrefetchAhead slots later.
  [[gnu::always_inline]] void prefetch_later(std::size_t k) const {
    if (k + kPrefetchAhead >= neighbours_.grid.size()) return;
    const std::size_t later = neighbours_.grid.index(k + kPrefetchAhead);
    const char* record = reinterpret_cast<const char*>(&agents_[later]);
    for (std::size_t line = 0; line < sizeof(Agent); line += 64) __builtin_prefetch(record + line);
    __builtin_prefetch(&desires_[later]);
  }
  void stage_collisions();
  void stage_states();
  // The states stage's last part: each agent's stall timer, and the reasons of those past the
  // mark (stalls.hpp). Reads the world, writes only the stall records.
  void update_stalls();
  void count_rules();
  // A standing agent (no desire): the velocity that takes it out of the way of a mover coming at
  // it (zero when none is), as people step aside for someone in a hurry. In the anti-gravity
  // modes, of a more important mover; with any_priority (cfsm mode), of any mover on its way to
  // its goal (not of one stepping aside itself, so yielding does not run through a crowd).
  Vec2 yield_velocity(std::size_t i, Scratch& scratch, bool any_priority = false) const;
  // The agents and obstacles agent i avoids this tick, into scratch.batch.
  // Neighbour ids are filled in only when with_ids (for a trace); else 0. Returns a lower bound
  // on the squared distance from agent i's centre to every other's (its clearance,
  // Proximity::clearance2).
  double gather_neighbours(std::size_t i, Scratch& scratch, bool with_ids) const;
  // Avoidance for the agent at grid slot k (stage_avoidance): its steered velocity, or with
  // `batched` its push sums into scratch.sums, for its chunk to finish.
  void avoid(std::size_t k, Scratch& scratch, bool batched);
  const Agent* subject_of(const Agent& a) const;
  // Agent i's pathing state: a default one without a map.
  const PathState& path_of(std::size_t i) const { return pathing_.path_of(i); }
  // How far ahead the grid-order loops prefetch agents' records, in grid slots.
  static constexpr std::size_t kPrefetchAhead = 4;

  // body(i, scratch) for i in [0, n): on the executor's workers when there is one and the world
  // is large enough, else here.
  template <class Body>
  void for_each_agent(std::size_t n, Body&& body) {
    for_each_range(n, [&](std::size_t begin, std::size_t end, Scratch& scratch) {
      for (std::size_t i = begin; i < end; ++i) body(i, scratch);
    });
  }
  // The same over ranges of [0, n): body(begin, end, scratch).
  template <class Body>
  void for_each_range(std::size_t n, Body&& body) {
    if (!runner_.executor || runner_.scratch.size() < 2 || agents_.size() < kParallelMinAgents) {
      body(std::size_t{0}, n, runner_.scratch[0]);
      return;
    }
    runner_.executor->parallel_for(n, [&](std::size_t begin, std::size_t end, std::size_t worker) {
      body(begin, end, runner_.scratch[worker]);
    });
  }
  // Agent i's reciprocal velocity (stage_avoidance: a member of a reciprocal move, or any agent
  // in orca mode). `aside`: the velocity obstacles moved it off the velocity it preferred.
  Vec2 reciprocal_desire(std::size_t i, Scratch& scratch, bool& aside) const;
  // Agent i's velocity by the collision-free speed model (stage_avoidance in cfsm mode): its
  // wish's direction turned by the repulsion of its neighbours, the walls and the obstacles, at
  // the speed its headway to the nearest one ahead in that direction allows.
  Vec2 headway_desire(std::size_t i, Scratch& scratch);
  // cfsm mode: whether agent a, held up short of its place (`way` from it there), takes the place
  // where it stands beside arrived agents of its order among `near` (headway_desire's
  // neighbours, `near_index` their agents' indices).
  bool takes_place_beside(const Agent& a, Vec2 way, std::span<const ReciprocalNeighbour> near,
                          std::span<const std::uint32_t> near_index, double range) const;

  WorldDef def_;
  Rng rng_;
  std::uint64_t tick_ = 0;
  AgentId next_id_ = 1;
  std::vector<Agent> agents_;
  ObstacleSet obstacles_;  // obstacle_set.hpp
  std::optional<TileMap> map_;
  std::uint64_t map_version_ = 0;
  // Collision events, subjects hit and the pairs touching (contacts.hpp).
  Contacts contacts_;
  // The last step's hits and deaths (World::events), and whether any agent is armed (counted with
  // the avoidance rules, after a spawn, a removal or loading): a world without weapons skips the
  // combat stage.
  std::vector<GameEvent> events_;
  bool any_armed_ = false;
  // Scratch of stage_states, kept for its capacity: the agents under an order still on their way.
  std::vector<std::uint32_t> on_their_way_;
  // The host's executor and clock, the workers' scratch, the profile and the inspected agents'
  // traces (step_runner.hpp): how the step runs, never what it computes.
  StepRunner runner_;
  // Scratch, reused every step: who is near whom (proximity.hpp).
  Proximity neighbours_;
  std::vector<Desire> desires_;
  // Paths, walkers, the path queue and flow fields: a part with its own state (path_service.hpp).
  PathService pathing_;
  // Orders kept by id and their stages: a part with its own state (order_service.hpp).
  OrderService orders_;
  // Formation records, pending assignments and pacing: a part with its own state
  // (formation_service.hpp).
  FormationService formations_;
  // Measurement lines and areas: observers of the agents (measurements.hpp).
  MeasurementService measurements_;
  // Sources and exits: where agents enter and leave (sources.hpp, world_sources.cpp).
  SourceService sources_;

  // Wander, flock, follow_path and follow, and queueing: a part with its own state
  // (steering_service.hpp).
  SteeringService steering_;
  SteeringService::Scene steering_scene() const { return {agents_, def_, tick_, neighbours_}; }
  // Queueing: an agent doing `queue` brakes behind a slower one close ahead (after pathing).
  void pace_queues();
  // Walls: segments, polylines and polygons (walls.hpp).
  WallService walls_;
  // Each agent's stall timer and reason (stalls.hpp): explains motion, changes none, so the
  // state hash leaves it out; checkpoints keep it.
  StallService stalls_;
};

}  // namespace herd::sim
