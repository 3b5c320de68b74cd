// herd::sim step profile: how long the last World::step() took, stage by stage, as Box2D v3's
// b2Profile. The sim reads no clock of its own: the host lends one (World::set_clock), and
// without it every figure is 0. Timings are observations only; they never change the state.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace herd::sim {

// A monotonic clock in nanoseconds from any fixed start (the host's steady clock).
using StepClock = std::uint64_t (*)();

// The stages of a step, in the order they run.
enum class Stage : std::uint8_t {
  sources,      // sources' due agents made (source.hpp)
  assignments,  // deferred optimal formation assignments, within their per-tick budget
  phases,       // attack and react phase changes
  grid,         // the spatial grid of agents (and of obstacles when they changed)
  desires,      // each agent's desired velocity from its behaviour
  pathing,      // tile paths: the path queue within its per-tick budget, walkers, flow fields
  pace,         // formations' pacing and reciprocal moves
  avoidance,    // neighbour search and avoidance (anti-gravity, or ORCA in a swap)
  integrate,    // steering and integration
  collisions,   // collision detection and elastic response
  walls,        // tile walls, walls (add_wall: no centre crosses one) and world bounds
  states,       // each agent's move state
  formations,   // formation records: arrivals, completion, unreachable places
  exits,        // agents inside an exit removed and counted (source.hpp)
  kCount
};
inline constexpr std::size_t kStageCount = static_cast<std::size_t>(Stage::kCount);

// Each stage's name, as /metrics, herd-bench and the viewer show it.
constexpr std::string_view stage_name(Stage s) {
  constexpr std::array<std::string_view, kStageCount> names = {
      "sources",   "assignments", "phases",     "grid",  "desires", "pathing",    "pace",
      "avoidance", "integrate",   "collisions", "walls", "states",  "formations", "exits"};
  return names[static_cast<std::size_t>(s)];
}

struct StepProfile {
  std::uint64_t step_ns = 0;                          // the whole step
  std::array<std::uint64_t, kStageCount> stage_ns{};  // each stage, indexed by Stage
  std::uint64_t of(Stage s) const { return stage_ns[static_cast<std::size_t>(s)]; }
};

}  // namespace herd::sim
