// herd::sim::World — the authoritative world, the sim's one public object. Pure C++: no clocks,
// no threads, no I/O of its own.
//
// step() is a script of stages over the agent array: sources -> assignments -> spatial grid ->
// phases and orders -> desired velocity per behaviour -> pathing -> pacing -> avoidance -> steering
// and integration -> collisions -> walls -> states -> formations -> exits (world_step.cpp). Stages
// that read other agents compute into scratch and commit afterwards (RVO2's newVelocity/update
// split), so no result depends on the order agents are visited in. The same WorldDef and the same
// commands at the same ticks give bit-identical state, which state_hash() pins.
//
// The state lives behind a pointer (src/world_impl.hpp): this header is the whole contract, and
// nothing of the step's machinery (grids, scratch, path queue, kernels) is part of it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "agent.hpp"
#include "commands.hpp"
#include "executor.hpp"
#include "measurement.hpp"
#include "profile.hpp"
#include "source.hpp"
#include "stall.hpp"
#include "tile_map.hpp"
#include "trace.hpp"
#include "types.hpp"
#include "vec2.hpp"
#include "wall.hpp"
#include "world_def.hpp"

namespace herd::sim {

class WorldImpl;

// A member of a formation whose place cannot be reached: the place is inside an obstacle (then,
// where there is room, it is moved beside the obstacle: `moved_to`), or its agent's pathing finds
// no way there (state unreachable).
struct UnreachablePlace {
  AgentId agent = 0;
  Vec2 place;                    // the place the formation gave it
  std::optional<Vec2> moved_to;  // where it goes instead
  bool by_path = false;          // no path (a wall, a closed region) rather than an obstacle
  friend bool operator==(const UnreachablePlace&, const UnreachablePlace&) = default;
};

// A formation being formed (formation and demo commands), as snapshots tell it: its members and
// how many have arrived. Views into the world's own record, valid until the next step or command.
struct FormationView {
  std::uint32_t id = 0;
  std::span<const AgentId> agents;
  std::uint32_t members = 0;  // agents still heading for (or standing in) a place they can reach
  std::uint32_t arrived = 0;
  bool complete = false;  // every member has arrived; unreachable places do not hold it back
  std::span<const UnreachablePlace> unreachable;
};

// An agent's way through the tile map, as snapshots tell it. Views into the world's own state,
// valid until the next step or command; all empty without a tile map.
struct PathView {
  std::span<const TileCoord> trail;  // no_backtrack walkers: the tiles visited, oldest first
  bool pending = false;              // astar: a path search for it waits in the world's path queue
  bool unreachable = false;          // no way to its goal
};

// What the path queue did (for metrics), a report as Box2D's b2Counters are: totals since the
// world was made or loaded.
struct PathQueueStats {
  std::size_t queued = 0;  // requests waiting, the one being searched included
  // Budgeted work: A* tile expansions and flow-field building (FlowField::work).
  std::uint64_t expansions_last_tick = 0;
  std::uint64_t expansions_total = 0;
  std::uint64_t paths_served_total = 0;  // requests answered (path found or not)
  std::uint64_t deferred_total = 0;  // requests left waiting at the end of a tick, summed per tick
  std::size_t fields_waiting = 0;    // flow-field goals waiting, the one being built included
  std::size_t fields_kept = 0;       // flow fields in the cache
  std::uint64_t fields_built_total = 0;
};

// What a player's team may do beyond commanding its own agents (World::authorize), as a game sets
// it: how many agents it holds and where it spawns them. Its units take the world's agent
// defaults: a player chooses none of their stats (sight, speed, size, mass, priority...).
struct TeamRules {
  std::uint32_t max_agents = 0;    // its agents at most; 0: no cap of its own
  std::optional<Rect> spawn_area;  // where its spawns land; none: within its own agents' sight
};

class World {
 public:
  // def must satisfy validate(def) (asserted).
  explicit World(const WorldDef& def);
  ~World();
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // Applies a command, whole or not at all, and says what it did. The one way in for commands:
  // the world changes before apply returns, and the next step() is the first to move under it.
  // The outcome's tick is tick() + 1, the tick whose step follows: a recording that applies the
  // same commands before the same ticks' steps rebuilds the same world. Several commands between
  // two steps apply in the order given, as if queued together.
  CommandOutcome apply(const Command& command, CommandOrigin origin = {});

  // A player's command, made the command of team `team` (1 to AgentDefLimits::kMaxTeam), or
  // refused (the outcome's error) with nothing changed. Only commands on agents are a player's
  // (the rest: forbidden). Its selection becomes its team's agents only ("all", groups and
  // rectangles: those of the team; listed ids must be the team's: another team's agent that the
  // team sees is not_yours, one it does not see is unknown_agent, as an id that does not exist).
  // An agent a behaviour acts on must be one the team sees. A spawn makes the team's agents, within
  // `rules`: at most its max_agents; in its spawn area (a count spawn is placed there at random,
  // from the world's state: the same world places them alike), or, without one, each agent
  // within the sight of one of the team's own; none of the units' stats chosen. The command so
  // made, applied by apply(), does exactly what the player asked; a recording keeps it (it names
  // the team and every place: replayed, it does the same).
  CommandOutcome authorize(Command& command, std::uint8_t team, const TeamRules& rules = {}) const;

  // Fog of war: for each agent (parallel to agents()), the teams that see it, bit t for team t
  // (bit 0 unused): its own team, and every team with an agent within that agent's sight of it
  // (centre to centre, AgentDef::sight) with nothing between their centres that blocks sight: a
  // wall, a blocked tile of the map or an obstacle. Computed on each call, from a grid per team:
  // O(agents x teams) for crowds of even density, and a line test per pair within sight where
  // the world has walls, a map or obstacles. Team 0 (nobody's) sees nothing.
  void seen_by(std::vector<std::uint64_t>& out) const;
  // For each of `points`, whether team `team` sees it now (out[k] 1), as seen_by decides for an
  // agent standing there: what a team's memory of the map is made of (explored ground, a ghost's
  // place seen empty). O(points + the team's agents).
  void points_seen(std::uint8_t team, std::span<const Vec2> points,
                   std::vector<std::uint8_t>& out) const;

  // Advances one tick.
  void step();

  // Lends the world workers for its per-agent stages (desires, avoidance, integration, collision
  // detection); nullptr (the default) runs them on the calling thread. Not owned: it must outlive
  // its use. The state after each step is bit-identical whatever the executor (tests/exec).
  void set_executor(Executor* executor);
  // Worlds below this many agents step on the calling thread: waking workers would cost more.
  static constexpr std::size_t kParallelMinAgents = 2048;

  // Lends the world a clock for its step profile (profile.hpp): nanoseconds from any fixed start,
  // never decreasing. nullptr (the default): no timings, every stage 0. The sim reads no clock of
  // its own; the clock changes no state.
  void set_clock(StepClock clock);
  // How long the last step() took, stage by stage (all 0 without a clock).
  const StepProfile& profile() const;

  // Collisions of the last step(), in the order they were found (deterministic).
  const std::vector<CollisionEvent>& collisions() const;
  // Orders done, hits and deaths of the last step() (agent.hpp: GameEvent): the orders in id order,
  // then the hits and deaths in the order they were made (by the hitter's id). The dead are gone
  // from agents() by the end of the step.
  const std::vector<GameEvent>& events() const;

  // Agents whose avoidance is traced from the next step on (for inspectors); unknown ids are
  // ignored. At most kMaxInspected.
  static constexpr std::size_t kMaxInspected = 64;
  void set_inspected(std::vector<AgentId> ids);
  const std::vector<AgentId>& inspected() const;
  // The trace of an inspected agent from the last step, or nullptr.
  const AvoidanceTrace* trace(AgentId id) const;

  const WorldDef& def() const;
  std::uint64_t tick() const;                   // ticks completed
  double time() const;                          // tick() * def().dt, never accumulated
  std::span<const Agent> agents() const;        // ordered by id
  std::span<const Obstacle> obstacles() const;  // ordered by id
  const Agent* find(AgentId id) const;
  // Each agent's desire in the last step, parallel to agents(): the point it is heading for (for
  // snapshots), if any, and its velocity after avoidance turned it. Agents that commands added
  // since the last step have none yet: the span may be shorter than agents() until the next.
  std::span<const Desire> desires() const;
  // Each agent's stall (stall.hpp), parallel to agents(): how long it has been slow and, past
  // StallRule's mark, why and who is responsible. Updated by each step after the agents' states;
  // like desires(), shorter than agents() until the next step when commands added agents. World
  // state (checkpoints keep it), but left out of state_hash(): it changes no motion.
  std::span<const Stall> stalls() const;
  // How many agents are stalled for each reason (by StallReason; [none] counts none), as of the
  // last step.
  const std::array<std::uint32_t, kStallReasonCount>& stalled_by_reason() const;
  // Bumped whenever obstacles are added or removed, so servers can resend them only then.
  std::uint64_t obstacles_version() const;
  // The tile map, if one is loaded, and a version bumped by every load, clear or tile change.
  const TileMap* map() const;
  std::uint64_t map_version() const;
  // Formations still tracked (the newest 64), oldest first.
  std::vector<FormationView> formations() const;
  // Optimal slot assignment is exact and O(n^3): 2,000 agents take about 0.65 s, so larger
  // selections are refused (use keep_order or shuffle).
  static constexpr std::size_t kMaxOptimalAssignment = 2000;
  // Optimal assignments of up to this many agents are made inside the command; larger ones over
  // ticks, within WorldDef::assignment_costs_per_tick (about 16 million evaluations at most here).
  static constexpr std::size_t kMaxImmediateAssignment = 256;
  // Agent-slot costs still to evaluate, at most (n^2 per agent left in each pending assignment):
  // the deferred assignment work, for metrics. And how many assignments are pending.
  std::uint64_t assignment_work_pending() const;
  std::size_t assignments_pending() const;
  // Orders queued after an agent's current one (set_target's queue) at most, and points of a
  // patrol's route (its start included).
  static constexpr std::size_t kMaxQueue = 64;
  static constexpr std::size_t kMaxRoute = 65;
  // The points agent `id` will go to after its current goal, in order: its queued orders' (a
  // patrol's route among them), or, patrolling a route, the rest of one lap. Empty for most.
  std::vector<Vec2> upcoming(AgentId id) const;
  // Some agent has queued orders, a route or an attack-move's memory (else upcoming is empty).
  bool has_orders() const;
  // The pathing of agents()[index]: its walker's trail, a search waiting for it.
  PathView path(std::size_t index) const;
  // The path queue: its length and the work it has done.
  PathQueueStats path_queue_stats() const;

  // Measurement lines and areas (add_measurement), ordered by id, with their last second's
  // report; and a version bumped when one is added or removed or a report is made.
  std::span<const Measurement> measurements() const;
  std::uint64_t measurements_version() const;
  // Sources and exits (add_source, add_exit), each ordered by id, with their counts; and a
  // version bumped when one is added or removed, a source spawns or an exit removes agents.
  std::span<const Source> sources() const;
  std::span<const Exit> exits() const;
  std::uint64_t sources_version() const;
  // Walls (add_wall), ordered by id; and a version bumped when one is added or removed.
  std::span<const Wall> walls() const;
  std::uint64_t walls_version() const;
  // Heap bytes of what the world keeps per agent: the agent array, the per-agent scratch of the
  // step (desires, steered velocities, grid slots, collision pairs and contacts), pathing state
  // (with each agent's path and walker history) and the neighbour grids. Maps, flow fields and
  // the path finder belong to the map, not to the agents, and are left out.
  std::size_t agent_memory_bytes() const;

  // FNV-1a over the exact bits of everything that determines the future.
  std::uint64_t state_hash() const;

  // A checkpoint: the whole state, exactly. A world loaded from it has the same state_hash() and
  // the same future.
  std::string save_checkpoint() const;
  // The world, or a sentence saying why the data is not a usable checkpoint (truncated, corrupt,
  // another format). Never throws; never trusts a count in the data.
  static std::variant<World, std::string> load_checkpoint(std::string_view data);

 private:
  explicit World(std::unique_ptr<WorldImpl> impl);
  std::unique_ptr<WorldImpl> impl_;
  friend struct WorldAccess;  // the sim's own tests and benchmarks read its records
                              // (world_access.hpp)
};

}  // namespace herd::sim
