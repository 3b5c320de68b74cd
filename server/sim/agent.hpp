// herd::sim agents: their settings (AgentDef), what they are doing (Behaviour) and their state.
#pragma once

#include <cstdint>

#include "vec2.hpp"

namespace herd::sim {

using AgentId = std::uint32_t;  // on the wire as uint32; never reused within a run; 0 is "none"
inline constexpr AgentId kNoAgent = 0;

enum class BehaviourKind : std::uint8_t {
  idle,    // no goal: brake to a stop; others can push it around
  hold,    // arrive at a fixed point (where it was told to hold) and return there when pushed
  seek,    // Reynolds' seek (seed 001): full speed at the target point or agent, overshoots
  arrive,  // seek that slows down and stops on the target without oscillating
  flee,    // away from a point or an agent at full speed (within `radius`, when one is given)
  pursue,  // intercept an agent from the velocity difference and the time to intercept (seed 004)
  evade,   // flee the position an agent is predicted to reach (within `radius`, when given)
  attack,  // seed 000: walk to an enemy, hit it, walk back home and hold
  react,   // seed 004's distance switching: `response` to an agent within `radius`, else go home
};

// Where an attack or a reaction is at (reported in snapshots).
enum class Phase : std::uint8_t {
  none,
  approach,  // attack: going for the enemy
  retreat,   // attack: hit it, walking back home
  done,      // attack: home again, holding
  respond,   // react: the subject is within the radius: pursuing or evading it
  home,      // react: the subject is away: at or going home
};

// Members ordered so the one-byte fields share a word: 48 bytes, not 72 (memory per agent).
struct Behaviour {
  BehaviourKind kind = BehaviourKind::idle;
  BehaviourKind response = BehaviourKind::pursue;  // react: pursue or evade
  Phase phase = Phase::none;
  AgentId agent = kNoAgent;     // seek/arrive/flee/pursue/evade/attack/react: the other agent
  Vec2 point;                   // seek/arrive/flee/hold target point (when agent is kNoAgent)
  double radius = 0;            // flee/evade: only within this distance (0: always); react: trigger
  Vec2 home;                    // attack/react: where to return
  friend bool operator==(const Behaviour&, const Behaviour&) = default;
};

// How steering turns into motion.
enum class Movement : std::uint8_t {
  inertial,   // seeds 001/004: steering is a force on momentum, |dv| <= max_force/mass * dt
  kinematic,  // seed 000/003 ("multiply the direction vector by speed"): heading turns at once,
              // only the speed ramps, |d speed| <= max_force/mass * dt
};

// How an agent finds its way to its goal when the world has a tile map.
enum class Pathing : std::uint8_t {
  direct,        // steer straight at the goal (walls only stop it)
  no_backtrack,  // seed 002's tile walker: tile by tile, no steering, not a pathfinder
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

// Per-agent settings, with defaults in the manner of Box2D's b2BodyDef.
struct AgentDef {
  double radius = 8.0;             // units, [0.1, 100]
  double mass = 1.0;               // [0.001, 1e6]; steering and collisions use it
  double max_speed = 120.0;        // units/s, [0, 1e4]
  double max_force = 400.0;        // steering force limit, units/s² at mass 1, [0, 1e5]
  double slow_radius = 60.0;       // units: arrive starts slowing down inside this distance
  double arrive_tolerance = 0.05;  // units: an arriving agent this close and this slow has arrived
};

struct Agent {
  AgentId id = 0;
  std::uint8_t group = 0;
  Movement movement = Movement::inertial;
  Pathing pathing = Pathing::direct;
  std::uint8_t neighbours = 8;  // astar/flow: 8 (diagonals, no corner cutting) or 4
  MoveState state = MoveState::idle;
  bool collided = false;  // seed 003: set by a collision, cleared when it reaches its goal
  Behaviour behaviour;
  Vec2 position;
  Vec2 velocity;
  AgentDef def;
};

// A static circular obstacle.
using ObstacleId = std::uint32_t;
struct Obstacle {
  ObstacleId id = 0;
  Vec2 position;
  double radius = 10.0;
  friend bool operator==(const Obstacle&, const Obstacle&) = default;
};

}  // namespace herd::sim
