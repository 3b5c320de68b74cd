// herd::sim sources and exits: where agents enter the world and where they leave it, as
// pedestrian simulators model a crowd's origins and destinations (JuPedSim's and Vadere's
// sources and targets). A source is a rectangle that spawns agents from a template at a rate
// until it has made its total; an exit is a rectangle that removes the agents that reach it and
// counts them. Both are world state: seeded placements, checkpoints, the state hash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "agent.hpp"
#include "types.hpp"
#include "vec2.hpp"

namespace herd::sim {

using SourceId = std::uint32_t;  // from 1, never reused within a run
using ExitId = std::uint32_t;    // likewise

// The agent a source makes: a spawn's settings (unset ones take the world's AgentDef defaults)
// and what it does from birth. `behaviour` is idle or one of the kinds that go to a point
// (takes_point: hold, seek, arrive, flee, patrol, attack_move), `target` being that point; its
// `pathing` (with `neighbours`, 4 or 8) needs a tile map unless it is direct.
struct AgentTemplate {
  std::uint8_t group = 0;
  std::optional<double> radius;
  std::optional<double> max_speed;
  std::optional<double> max_force;
  std::optional<double> mass;
  Movement movement = Movement::inertial;
  BehaviourKind behaviour = BehaviourKind::idle;
  Vec2 target;  // not for idle
  Pathing pathing = Pathing::direct;
  std::uint8_t neighbours = 8;
  // Avoidance priority, layer and mask, as spawn's (unset: the world's defaults).
  std::optional<std::uint8_t> priority;
  std::optional<std::uint32_t> layer, mask;
  CombatSettings combat;  // health and weapon (hp: unset, each starts unhurt)
  friend bool operator==(const AgentTemplate&, const AgentTemplate&) = default;
};

// A source: the rectangle [min, max] (inside the world, width and height above 0) spawning
// `rate` agents per second of world time, `total` in all. Agent k (from 1) is due in the step
// of tick created_tick + ceil(k / (rate * dt)): the count due by tick t is computed afresh from
// t - created_tick, never accumulated, so a fractional rate keeps its exact average. Due agents
// are made at the start of the step (before the grid), each at a point drawn uniformly in the
// rectangle from the world's generator (x then y), tried again up to kPlacementTries times while
// the point is on a blocked tile or its disc would overlap an agent's; when every try fails, or
// the world holds max_agents, the rest wait for the next tick (they are not lost).
struct Source {
  SourceId id = 0;
  Vec2 min, max;
  double rate = 1;  // agents per second
  std::uint32_t total = 1;
  AgentTemplate agent;
  std::uint64_t created_tick = 0;  // the world's tick when it was added
  std::uint32_t spawned = 0;       // agents made so far (<= total)
  std::uint32_t remaining() const { return total - spawned; }
  friend bool operator==(const Source&, const Source&) = default;
};

// An exit: the rectangle [min, max] (inside the world, width and height above 0). At the end of
// each step, after integration, collisions and walls, every agent whose centre is inside it
// (edges included) is removed, as the remove command removes agents (ids never given out again;
// behaviours that named them lose their subject), and counted. An agent inside several
// overlapping exits counts for the one with the lowest id.
struct Exit {
  ExitId id = 0;
  Vec2 min, max;
  std::uint64_t created_tick = 0;       // the world's tick when it was added
  std::uint64_t removed = 0;            // agents removed so far
  std::uint64_t last_removal_tick = 0;  // the tick whose step last removed one; 0: none yet
  friend bool operator==(const Exit&, const Exit&) = default;
};

struct SourceLimits {
  static constexpr std::size_t kMaxSources = 64;  // in a world at once, as measurements
  static constexpr std::size_t kMaxExits = 64;
  static constexpr double kMaxRate = 1000;               // agents per second
  static constexpr std::uint32_t kMaxTotal = 1'000'000;  // agents per source
  static constexpr int kPlacementTries = 8;              // seeded points tried per agent per tick
};

}  // namespace herd::sim
