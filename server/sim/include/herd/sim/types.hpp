// herd::sim's vocabulary: the ids, kinds, modes and definitions a user of the sim names (in
// commands, scenarios and snapshots), and the limits it accepts them within. Standard library
// only, and none of the sim's machinery: the protocol layer sees the sim through this header and
// commands.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "vec2.hpp"

namespace herd::sim {

// ---- agents -----------------------------------------------------------------------------------

using AgentId = std::uint32_t;  // on the wire as uint32; never reused within a run; 0 is "none"
inline constexpr AgentId kNoAgent = 0;

enum class BehaviourKind : std::uint8_t {
  idle,    // no goal: brake to a stop; others can push it around
  hold,    // arrive at a fixed point (where it was told to hold) and return there when pushed
  seek,    // Reynolds' seek: full speed at the target point or agent, overshoots
  arrive,  // seek that slows down and stops on the target without oscillating
  flee,    // away from a point or an agent at full speed (within `radius`, when one is given)
  pursue,  // intercept an agent from the velocity difference and the time to intercept
  evade,   // flee the position an agent is predicted to reach (within `radius`, when given)
  attack,  // the attack action: walk to an enemy, hit it, walk back home and hold
  react,   // switching on distance: `response` to an agent within `radius`, else go home
  patrol,  // arrive at the point, then back where it was when commanded, and again, until told else
  // Go to the point; on the way, engage (attack's pursuit) an enemy that comes within `radius`
  // (its sight), and carry on to the point once it has hit it (or lost it)
  attack_move,
  // Reynolds' wander: seek a point on a circle ahead, displaced a little each tick at random (from
  // the world's seeded generator); `radius` is the circle's (BehaviourParams: distance, jitter)
  wander,
  // Reynolds' flocking among the agents of its group within `radius`: separation, alignment and
  // cohesion, weighted (BehaviourParams), and optionally toward BehaviourParams::target
  flock,
  // Reynolds' path following: predict, project onto the path (BehaviourParams::path), seek ahead
  // along it; stays within `radius` of it; once to its end (arrive there) or round (loop)
  follow_path,
  // Leader following: keep BehaviourParams::offset (in the leader's frame) from `agent`, matching
  // its velocity, arriving without overshoot when it stops
  follow,
  // Arrive at the point, braking behind a slower agent close ahead (Reynolds' queueing), so a
  // crowd goes through a door one by one instead of pushing
  queue,
  kCount  // not a kind: how many there are (kBehaviours has a row for each)
};

// Where an attack or a reaction is at (reported in snapshots).
enum class Phase : std::uint8_t {
  none,
  approach,  // attack: going for the enemy
  retreat,   // attack: hit it, walking back home
  done,      // attack: home again, holding
  respond,   // react: the subject is within the radius: pursuing or evading it
  home,      // react: the subject is away: at or going home
  out,       // patrol: going to the point
  back,      // patrol: going back to where it was when commanded
  advance,   // attack_move: going to the point
  engage,    // attack_move: going for an enemy it saw on the way
};

// How an agent sent with others to one point comes to rest (set_target's `spread`).
enum class Settle : std::uint8_t {
  none,     // arrives at its own goal point only
  contact,  // also stops where it would touch a stopped agent of the same order (spread point)
  near,     // the same, but only near its own goal (spread keep: a place someone else stands in)
  settled,  // has stopped by contact: holds where it stopped
  gather,   // as near, for a group converging into a clump: its members avoid one another by
            // reciprocal velocity obstacles on the way
};

// The distance within which an attack-move sees enemies, unless its order gives one (units).
inline constexpr double kDefaultSight = 200;

// Members ordered so the one-byte fields share a word: 48 bytes, not 72 (memory per agent).
struct Behaviour {
  BehaviourKind kind = BehaviourKind::idle;
  BehaviourKind response = BehaviourKind::pursue;  // react: pursue or evade
  Phase phase = Phase::none;
  Settle settle = Settle::none;  // in what would be padding: a Behaviour is no larger for it
  AgentId agent = kNoAgent;      // seek/arrive/flee/pursue/evade/attack/react: the other agent
  Vec2 point;         // seek/arrive/flee/hold/patrol target point (when agent is kNoAgent)
  double radius = 0;  // flee/evade: only within this distance (0: always); react: trigger;
                      // attack_move: sight (0: kDefaultSight)
  Vec2 home;          // attack/react: where to return; patrol: the other end
  friend bool operator==(const Behaviour&, const Behaviour&) = default;
};

// What each behaviour is and takes, one row per kind: the world (which set_behaviour is valid,
// where an attack or reaction starts), the codecs (the wire name, which fields apply), the
// checkpoint reader (the last kind), herd-ctl and the docs' tests all read this table, so a new
// kind is a row here plus its steering (behaviour.cpp); the static_assert below fails the build
// when a kind has no row.
struct BehaviourTraits {
  BehaviourKind kind = BehaviourKind::kCount;
  std::string_view name;        // on the wire (set_behaviour's `behaviour`, snapshots)
  bool takes_point = false;     // a `target` point (or `target_tile`): seek, arrive, flee, hold
  bool point_or_agent = false;  // exactly one of `target` and `agent`: seek, arrive, flee
  bool needs_agent = false;     // acts on another agent, which must be given: pursue ... react
  bool takes_radius = false;    // an optional `radius`: flee, evade; react's trigger
  bool needs_radius = false;    // react: the radius is its trigger and must be given
  bool takes_response = false;  // react: pursue or evade
  Phase start = Phase::none;    // the phase an agent starts in when given it
  // Heads for its subject (seek, arrive, pursue, attack's approach): the subject is its target,
  // never an obstacle it avoids (as the avoidance write-ups have it). Only in phase `heads_only_in`
  // when that is not none.
  bool heads_for_subject = false;
  Phase heads_only_in = Phase::none;
  bool catches_by_contact = false;  // pursue: has arrived once it touches its subject
  // React: while it responds (phase respond) it acts as its response does, by that kind's row.
  bool acts_as_response = false;
};

inline constexpr std::size_t kBehaviourCount = static_cast<std::size_t>(BehaviourKind::kCount);

// clang-format off
inline constexpr std::array<BehaviourTraits, kBehaviourCount> kBehaviours = {{
    // kind                  name      point  pt|ag  agent  radius needR  resp   start            heads  only in          contact as-resp
    {BehaviourKind::idle,   "idle",   false, false, false, false, false, false, Phase::none,     false, Phase::none,     false, false},
    {BehaviourKind::hold,   "hold",   true,  false, false, false, false, false, Phase::none,     false, Phase::none,     false, false},
    {BehaviourKind::seek,   "seek",   true,  true,  false, false, false, false, Phase::none,     true,  Phase::none,     false, false},
    {BehaviourKind::arrive, "arrive", true,  true,  false, false, false, false, Phase::none,     true,  Phase::none,     false, false},
    {BehaviourKind::flee,   "flee",   true,  true,  false, true,  false, false, Phase::none,     false, Phase::none,     false, false},
    {BehaviourKind::pursue, "pursue", false, false, true,  false, false, false, Phase::none,     true,  Phase::none,     true,  false},
    {BehaviourKind::evade,  "evade",  false, false, true,  true,  false, false, Phase::none,     false, Phase::none,     false, false},
    {BehaviourKind::attack, "attack", false, false, true,  false, false, false, Phase::approach, true,  Phase::approach, false, false},
    {BehaviourKind::react,  "react",  false, false, true,  true,  true,  true,  Phase::home,     false, Phase::none,     false, true},
    {BehaviourKind::patrol, "patrol", true,  false, false, false, false, false, Phase::out,      false, Phase::none,     false, false},
    {BehaviourKind::attack_move, "attack_move", true, false, false, true, false, false, Phase::advance, true, Phase::engage, false, false},
    {BehaviourKind::wander, "wander", false, false, false, true,  false, false, Phase::none,     false, Phase::none,     false, false},
    {BehaviourKind::flock,  "flock",  true,  false, false, true,  false, false, Phase::none,     false, Phase::none,     false, false},
    {BehaviourKind::follow_path, "follow_path", false, false, false, true, false, false, Phase::none, false, Phase::none, false, false},
    {BehaviourKind::follow, "follow", false, false, true,  false, false, false, Phase::none,     false, Phase::none,     false, false},
    {BehaviourKind::queue,  "queue",  true,  false, false, false, false, false, Phase::none,     false, Phase::none,     false, false},
}};
// clang-format on

constexpr bool every_behaviour_has_its_row() {
  for (std::size_t i = 0; i < kBehaviourCount; ++i)
    if (static_cast<std::size_t>(kBehaviours[i].kind) != i || kBehaviours[i].name.empty())
      return false;
  return true;
}
static_assert(every_behaviour_has_its_row(),
              "kBehaviours needs one row per BehaviourKind, in order");

constexpr const BehaviourTraits& traits(BehaviourKind kind) {
  return kBehaviours[static_cast<std::size_t>(kind)];
}

// The row an agent acts by now: its response's while a react responds, else its own kind's.
constexpr const BehaviourTraits& acting_traits(const Behaviour& b) {
  const BehaviourTraits& own = traits(b.kind);
  return own.acts_as_response && b.phase == Phase::respond ? traits(b.response) : own;
}

// Its subject is its target now, not an obstacle: it is heading for it.
constexpr bool heads_for_subject(const Behaviour& b) {
  const BehaviourTraits& t = acting_traits(b);
  return t.heads_for_subject && (t.heads_only_in == Phase::none || b.phase == t.heads_only_in);
}

// What wander, flock, follow_path and follow take beyond a point, an agent and a radius
// (SetBehaviour::params). A 0 (or unset) takes the default the comment gives, from the agent's
// own radius r, speed and force, so that one command suits worlds in pixels and in metres.
struct BehaviourParams {
  double distance = 0;  // wander: the circle's centre ahead of the agent (0: 6 r)
  double jitter = 0;    // wander: the most the point on the circle moves per second (0: 30 r/s)
  // flock: the weights of separation, alignment and cohesion, and of heading for the target
  double separation = 1.5, alignment = 1, cohesion = 1;
  bool has_target = false;  // flock: travels toward Behaviour::point
  std::vector<Vec2> path;   // follow_path: the points, in order (2 .. kMaxPathPoints)
  bool loop = false;        // follow_path: from the last point back to the first, round and round
  bool has_offset = false;  // follow: `offset` given; else places behind the leader
  Vec2 offset;  // follow: x ahead of the leader, y to its right (screen, y down); for several
                // followers the first place of a block of them behind the leader
  friend bool operator==(const BehaviourParams&, const BehaviourParams&) = default;
};

struct BehaviourLimits {
  static constexpr std::size_t kMaxPathPoints = 1024;
  static constexpr double kMaxWeight = 100;  // flock weights: [0, kMaxWeight]
};

// The behaviours that keep state beyond Behaviour (the world's steering table).
constexpr bool has_steering_state(BehaviourKind kind) {
  return kind == BehaviourKind::wander || kind == BehaviourKind::flock ||
         kind == BehaviourKind::follow_path || kind == BehaviourKind::follow;
}

// How steering turns into motion.
enum class Movement : std::uint8_t {
  inertial,   // a ship's thrust: steering is a force on momentum, |dv| <= max_force/mass * dt
  kinematic,  // a walker ("multiply the direction vector by speed"): heading turns at once,
              // only the speed ramps, |d speed| <= max_force/mass * dt
};

// How an agent finds its way to its goal when the world has a tile map.
enum class Pathing : std::uint8_t {
  direct,        // steer straight at the goal (walls only stop it)
  no_backtrack,  // the no-backtracking tile walker: tile by tile, no steering, not a pathfinder
  astar,         // A* on the tiles, smoothed for the agent's radius, followed by steering
  flow,          // a flow field from the goal tile, shared by every agent going there
};

// What snapshots report.
enum class MoveState : std::uint8_t {
  idle,         // no goal
  moving,       // has a goal, not stopped at it
  arrived,      // stopped within the arrive tolerance of its goal point
  unreachable,  // its pathing cannot get it to its goal (the map changed, or it is walled in)
};

// A static circular obstacle's id.
using ObstacleId = std::uint32_t;

// ---- avoidance --------------------------------------------------------------------------------

// How agents avoid one another: not at all, by anti-gravity pushes (circle: plain; cardioid:
// the whole pipeline of avoidance.hpp, the default), by optimal reciprocal collision avoidance
// (orca: RVO2's velocity obstacles, reciprocal.hpp) for every agent, moving or standing, as
// RVO2 and Unity's crowd run it, or by the collision-free speed model of pedestrian dynamics
// (cfsm: Tordeux, Chraibi and Seyfried 2016, as JuPedSim runs it): each walks at the speed its
// headway to the nearest one ahead allows within a time gap, in a direction turned by its
// neighbours' and the walls' repulsion, so a crowd slows with density as people do.
enum class AvoidanceMode : std::uint8_t { none, circle, cardioid, orca, cfsm };
enum class Side : std::uint8_t { left, right };

// The split fix's green vector A. The stated idea: "add the original anti-gravity vectors first,
// and then adjust the remaining vector, as if it was one obstacle to avoid". The published code
// then scales the rotation and the length by (1 - |B|/|Y|) / (|B| + 1) and a squared ramp; with
// obstacles close enough to matter that leaves almost no sideways push, and an agent between two
// symmetric obstacles bounces back and forth (the symmetric_pair scenario shows it).
enum class SplitFixMode : std::uint8_t {
  seed,             // the published code, literally (its typo fixed)
  sum_as_obstacle,  // the idea: the side fix's rotation applied to the sum, weighted by 1 - |B|/|Y|
};

std::string_view to_string(AvoidanceMode mode);

// ---- formations -------------------------------------------------------------------------------

enum class Shape : std::uint8_t { circle, line, lines, block, wedge };
enum class SlotAssignment : std::uint8_t {
  optimal,     // minimum sum of squared travel (assignment.hpp), exact: at most
               // World::kMaxOptimalAssignment agents
  keep_order,  // agents by id to slots in order (crossings allowed, as in the demo)
  shuffle,     // a seeded random permutation
  bisection,   // near-minimal travel at any size: recursive bisection (assign_bisection)
  automatic,   // the default: optimal up to World::kMaxOptimalAssignment agents, bisection beyond
};

struct FormationDef {
  Shape shape = Shape::circle;
  Vec2 centre;
  double spacing = 0;     // units between neighbouring slots; 0: default_spacing for the
                          // selection's largest radius
  double facing = 0;      // degrees, clockwise on screen from +x: the whole layout is turned by it
  double radius = 0;      // circle: 0 means just large enough for the spacing
  bool vertical = false;  // line, lines: along y instead of x (before facing)
  std::uint32_t count = 2;    // lines: how many parallel lines; block: how many blocks side by side
  std::uint32_t columns = 0;  // block: columns per block; 0 means as square as possible
  SlotAssignment assignment = SlotAssignment::automatic;
  bool regroup =
      false;  // agents take their part's index as group: block b, line l (the demo's G, P)
  friend bool operator==(const FormationDef&, const FormationDef&) = default;
};

// ---- tile maps and the no-backtracking walker -------------------------------------------------

struct TileCoord {
  std::int32_t x = 0;
  std::int32_t y = 0;
  friend constexpr bool operator==(TileCoord, TileCoord) = default;
};

// Cell values of TileMapDef::cells.
inline constexpr std::uint8_t kWalkable = 0;
inline constexpr std::uint8_t kBlocked = 1;

// Everything that defines a map, in the manner of WorldDef. Checked by validate().
struct TileMapDef {
  std::int32_t width = 0;   // tiles, [1, kMaxSide]
  std::int32_t height = 0;  // tiles, [1, kMaxSide]
  double tile_size = 40.0;  // world units per tile side, [kMinTileSize, kMaxTileSize]; `maze`: 40
  std::vector<std::uint8_t>
      cells;  // width*height values, row-major (y*width + x), kWalkable/kBlocked
  friend bool operator==(const TileMapDef&, const TileMapDef&) = default;
};

struct TileMapLimits {
  // 1024 x 1024 = 1M tiles: a flow field over it holds 9.5 MB and takes ~0.16 s to build, an A*
  // query across it ~12 ms (herd-bench pathing --size 1024); larger maps would let one command
  // stall the tick loop.
  static constexpr std::int32_t kMaxSide = 1024;
  static constexpr double kMinTileSize = 1.0e-3;  // units
  static constexpr double kMaxTileSize = 1.0e4;   // units
};

struct WalkerLimits {
  static constexpr std::uint32_t kMaxHistory = 1024;
  static constexpr double kMinMoveTime = 1.0e-3;  // s
  static constexpr double kMaxMoveTime = 60.0;    // s
  // walker_advance() makes at most this many moves per call, so a huge jump in `now` cannot
  // stall a tick; a walker that falls behind catches up over the following calls.
  static constexpr std::uint32_t kMaxMovesPerAdvance = 4096;
};

}  // namespace herd::sim
