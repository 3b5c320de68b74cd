// herd::sim::WorldDef — everything that defines a world before its first tick.
#pragma once

#include <cstdint>
#include <string>

#include "agent.hpp"
#include "types.hpp"

namespace herd::sim {

// The published avoidance code's frame, in seconds: it counts in animation frames at 60 fps; herd
// counts seconds so the behaviour does not change with the tick rate.
inline constexpr double kSeedFrame = 1.0 / 60.0;

struct AvoidanceDef {
  AvoidanceMode mode = AvoidanceMode::cardioid;
  double personal_space = 3.0;     // k in k (r1+r2)^2/d^2; fixes' write-ups 3, push's 2; (0, 100]
  double cardioid_exponent = 3.0;  // e in ((1+cos)/2)^e; as published: 3; [0, 16]
  Side preferred_side =
      Side::right;  // for a dead-ahead obstacle or a perfect split (the split fix's: right)
  SplitFixMode split_fix = SplitFixMode::sum_as_obstacle;
  double push_epsilon = 0.05;  // pushes of magnitude below this are cut off; (0, 1]
  bool crossing = true;        // the crossing fix on (cardioid mode only)
  double crossing_activation = 40 * kSeedFrame;  // s: react to a mover within speed * this + r
  double lookahead = 120 * kSeedFrame;           // s: length of the look-ahead segments
  // Other agents each agent avoids at most: the nearest within the push cutoff (ties by id), as
  // RVO2's max_neighbors. Bounds the cost in a crowd piled on one point; 0: no cap. [0, 1000]
  std::uint32_t max_neighbours = 16;
  // The collision-free speed model (cfsm mode only). An agent's speed is its headway to the
  // nearest agent ahead in its lane (the gap between their discs) over time_gap, no more than it
  // wishes; its direction is its wish turned by each neighbour's repulsion, strength
  // exp((r1 + r2 - d) / range), and each wall's, strength exp((r - d) / range). The ranges are in
  // the agent's radii, so the model is the same in a world of metres and one of pixels: at a
  // radius of 0.2 m, 0.5 and 0.1 radii are JuPedSim's 0.1 m and 0.02 m. The time gap is
  // calibrated so that a corridor's crowd follows Weidmann's fundamental diagram
  // (docs/simulation.md); JuPedSim's default is 1 s.
  double time_gap = 0.56;                // s, [0.05, 10]
  double repulsion_strength = 8.0;       // neighbours' repulsion at contact, [0, 100]
  double repulsion_range = 0.5;          // radii, (0, 10]
  double wall_repulsion_strength = 5.0;  // [0, 100]
  double wall_repulsion_range = 0.1;     // radii, (0, 10]
  friend bool operator==(const AvoidanceDef&, const AvoidanceDef&) = default;
};

struct WalkerSettings {
  std::uint32_t max_history = 20;  // entries kept, [0, kMaxHistory]; published: 20
  double move_time = 0.23;         // seconds of world time per tile, [0.001, 60]; published: 230 ms
};

struct WorldDef {
  double width = 800.0;    // units; the world is [0, width] x [0, height], y grows downwards
  double height = 600.0;   // units
  double dt = 1.0 / 60.0;  // seconds of world time per tick (fixed); time = tick * dt
  std::uint64_t seed = 1;  // seeds the world's only random generator
  std::uint32_t max_agents = 20000;  // spawns past this are refused whole
  std::uint32_t max_obstacles = 10000;
  AgentDef agent_defaults;  // used for fields a spawn does not give
  AvoidanceDef avoidance;
  WalkerSettings walker;        // the no-backtracking walker: history length and move time
  int position_iterations = 3;  // collision stage: overlap-removal passes per tick, [0, 16]
  // A* agents' path requests wait in a FIFO queue served with at most this many tile expansions
  // per tick (DetourCrowd's path queue), so no command (a set_tiles replanning thousands of
  // agents) can stretch a tick: a request the budget does not reach waits, its agent "pending".
  // Work units, not time, so the tick a path arrives on depends only on the world. [1, 1e9];
  // 5,000 expansions on a 1000 x 60 map take about 2 ms on one core of a shared 2-core VM
  // (herd-bench budget: 10,000 measured p99 20 ms with 1,000 agents, over a 60 Hz tick); smoothing
  // a finished path (string_pull) is charged a tile per path tile but can cost more on long open
  // legs.
  std::uint32_t path_expansions_per_tick = 5000;
  // An optimal formation assignment of more than World::kMaxImmediateAssignment agents is worked
  // out over ticks, in whole steps (one agent's candidate places, one augmenting path or one
  // agent's check against every place) until this much work, counted in agent-slot cost
  // evaluations, is spent in a tick (OptimalAssignment::advance); meanwhile the agents head for
  // bisection's slots. Work units, not time, as above. [1, 1e12]; about 2 ns each on a shared VM
  // (herd-bench budget: 2,000 agents done in 137 ticks, worst tick 6.8 ms, p99 3.8 ms).
  std::uint64_t assignment_costs_per_tick = 1'000'000;
};

// An agent's valid settings (AgentDef), checked by validate(AgentDef) and by the boundaries that
// read them (the command codec's spawn, the scenario loader through validate).
struct AgentDefLimits {
  static constexpr double kMinRadius = 0.1, kMaxRadius = 100;  // units
  static constexpr double kMinMass = 1e-3, kMaxMass = 1e6;
  static constexpr double kMaxSpeed = 1e4;       // units/s
  static constexpr double kMaxForce = 1e5;       // units/s² at mass 1
  static constexpr double kMaxSlowRadius = 1e6;  // units
  static constexpr double kMinArriveTolerance = 1e-6, kMaxArriveTolerance = 1e3;  // units
  static constexpr std::uint8_t kMaxPriority = 99;      // priority in [0, 99], as Unity's
  static constexpr std::uint8_t kDefaultPriority = 50;  // AgentDef's default
  static constexpr double kMaxSight = 1e5;              // units; AgentDef::sight in [0, 1e5]
  // Teams 1 to 63 are players' (a team's visibility is one bit of a 64-bit mask); 0 is nobody's.
  static constexpr std::uint8_t kMaxTeam = 63;
  // Health and weapons (AgentDef::max_hp, Weapon): hit points, units, seconds.
  static constexpr double kMaxHp = 1e9, kMaxDamage = 1e9, kMaxRange = 1e4;
  static constexpr double kMinCooldown = 1e-3, kMaxCooldown = 3600;
};

// An obstacle's radius, for add_obstacle and for a loaded checkpoint.
struct ObstacleLimits {
  static constexpr double kMinRadius = 0.1, kMaxRadius = 1e4;  // units
};

// Valid ranges, checked by validate(); a boundary (scenario loader, flags) calls it before World.
struct WorldDefLimits {
  static constexpr double kMaxExtent = 1.0e6;  // units
  static constexpr double kMinDt = 1.0e-4;     // s
  static constexpr double kMaxDt = 1.0;        // s
  static constexpr std::uint32_t kMaxAgents = 1'000'000;
  // The most of the world's area its agents' discs may cover: a spawn past it is refused. Beyond
  // about half, a crowd can hardly move (discs jam near 0.8) and the collision and avoidance
  // work per tick grows without bound: 20,000 agents of radius 8 in 800 x 600 (over 8 times the
  // area) ticked in 113 ms.
  static constexpr double kMaxAreaFill = 0.5;
};

// Empty when def is usable, else a sentence saying which field is wrong.
std::string validate(const WorldDef& def);
std::string validate(const AgentDef& def);
std::string validate(const Weapon& weapon);
// Whether health and weapon settings are in range, and hp within the max_hp they make of
// `defaults`' (the agent's settings before them).
std::string validate(const CombatSettings& settings, const AgentDef& defaults);
std::string validate(const AvoidanceDef& def);
std::string validate(const WalkerSettings& settings);

}  // namespace herd::sim
