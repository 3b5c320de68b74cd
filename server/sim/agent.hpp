// herd::sim agents: their settings (AgentDef) and their state (Agent).
#pragma once

#include <cstdint>

#include "vec2.hpp"

namespace herd::sim {

using AgentId = std::uint32_t;  // on the wire as uint32; never reused within a run

// How an agent uses its target.
enum class Behaviour : std::uint8_t {
  none,    // no target: brake to a stop and stay
  seek,    // Reynolds' seek (seed 001): full speed at the target, overshoots and circles it
  arrive,  // seek that slows down inside a radius and stops at the target without oscillating
};

// What snapshots report.
enum class MoveState : std::uint8_t {
  idle,     // no target
  moving,   // has a target, not (yet) stopped at it
  arrived,  // stopped within the arrive tolerance of its target
};

// Per-agent settings, with defaults in the manner of Box2D's b2BodyDef.
struct AgentDef {
  double radius = 8.0;          // units, (0, 100]
  double mass = 1.0;            // > 0; acceleration = steering force / mass
  double max_speed = 120.0;     // units/s, >= 0
  double max_force = 400.0;     // units/s² at mass 1 (steering force limit), >= 0
  double slow_radius = 60.0;    // units: arrive starts slowing down inside this distance
  double arrive_tolerance = 0.05;  // units: an arriving agent this close and this slow has arrived
};

struct Agent {
  AgentId id = 0;
  std::uint8_t group = 0;
  Behaviour behaviour = Behaviour::none;
  MoveState state = MoveState::idle;
  Vec2 position;
  Vec2 velocity;
  Vec2 target;  // meaningful when behaviour != none
  AgentDef def;
};

}  // namespace herd::sim
