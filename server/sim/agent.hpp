// herd::sim agents: their settings (AgentDef), what they are doing (Behaviour) and their state.
#pragma once

#include <cstdint>

#include "api/types.hpp"
#include "vec2.hpp"

namespace herd::sim {

// Per-agent settings, with defaults in the manner of Box2D's b2BodyDef.
struct AgentDef {
  double radius = 8.0;             // units, [0.1, 100]
  double mass = 1.0;               // [0.001, 1e6]; steering and collisions use it
  double max_speed = 120.0;        // units/s, [0, 1e4]
  double max_force = 400.0;        // steering force limit, units/s² at mass 1, [0, 1e5]
  // units: arrive starts slowing down inside this distance. 0 (the default) derives it from the
  // agent's own speed and force (slow_radius_of): a fixed number suits one speed only.
  double slow_radius = 0.0;
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
struct Obstacle {
  ObstacleId id = 0;
  Vec2 position;
  double radius = 10.0;
  friend bool operator==(const Obstacle&, const Obstacle&) = default;
};

}  // namespace herd::sim
