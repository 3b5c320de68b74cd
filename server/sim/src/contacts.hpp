// herd::sim::Contacts — what the collision stage leaves for the next step and for the host: this
// tick's collision events, which agents touched their behaviour's subject, and the pairs touching,
// by id (an event is a pair that starts touching, as Box2D's begin-touch events, so a resting
// contact is one collision, not one per tick). `touching` and `hit_subject` are world state
// (checkpoints); the rest is remade every step.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "herd/sim/agent.hpp"

namespace herd::sim {

struct Contacts {
  std::vector<CollisionEvent> events;  // this tick's (World::collisions)
  std::vector<std::uint8_t>
      hit_subject;  // by agent index: touched its subject last collision stage
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // this tick's touching, by index
  // Pairs touching at the end of the last collision stage, by id (agent-agent; agent-obstacle
  // with the obstacle id offset by 2^32), and this tick's, swapped in at its end.
  std::vector<std::uint64_t> touching, touching_next;
};

}  // namespace herd::sim
