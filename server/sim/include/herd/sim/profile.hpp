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

// The stages of a step in the order they run, and the sub-stages within some of them: each
// sub-stage follows its stage here, is named "stage.part", and its time is part of its stage's (a
// stage's time is not the sum of its sub-stages': a stage does more than they do).
enum class Stage : std::uint8_t {
  sources,          // sources' due agents made (source.hpp)
  assignments,      // deferred optimal formation assignments, within their per-tick budget
  grid,             // the spatial grid of agents (and of obstacles when they changed)
  phases,           // attack and react phase changes, then orders
  phases_orders,    // orders: settling, engaging, patrols' turns, queued orders started
  desires,          // each agent's desired velocity from its behaviour
  pathing,          // tile paths: the path queue within its per-tick budget, walkers, flow fields
  pace,             // pacing: formations, group orders, flocks, queues
  pace_formations,  // formations' pacing and reciprocal moves
  pace_orders,      // group orders' tags, and movers settling by contact slowed
  pace_flocks,      // flocks' and followers' tags
  pace_queues,      // queueing: braking behind a slower one ahead
  avoidance,        // neighbour search and avoidance (anti-gravity, or ORCA in a swap)
  integrate,        // steering and integration
  integrate_keep_off,  // movers under orders kept off agents at rest under theirs
  collisions,          // collision detection and elastic response
  walls,               // tile walls, walls (add_wall: no centre crosses one) and world bounds
  walls_tiles,         // kept out of blocked tiles; walkers on rails
  walls_segments,      // held at walls
  states,              // each agent's move state
  formations,          // formation records: arrivals, completion, unreachable places
  combat,              // weapons' hits (agent.hpp: Weapon), and the dead removed
  exits,               // agents inside an exit removed and counted (source.hpp)
  kCount
};
inline constexpr std::size_t kStageCount = static_cast<std::size_t>(Stage::kCount);

// Each stage's name, as /metrics, herd-bench and the viewer show it.
constexpr std::string_view stage_name(Stage s) {
  constexpr std::array<std::string_view, kStageCount> names = {
      "sources",     "assignments", "grid",        "phases",          "phases.orders",
      "desires",     "pathing",     "pace",        "pace.formations", "pace.orders",
      "pace.flocks", "pace.queues", "avoidance",   "integrate",       "integrate.keep_off",
      "collisions",  "walls",       "walls.tiles", "walls.segments",  "states",
      "formations",  "combat",      "exits"};
  return names[static_cast<std::size_t>(s)];
}

// A sub-stage (named "stage.part"), timed within its stage.
constexpr bool is_sub_stage(Stage s) { return stage_name(s).find('.') != std::string_view::npos; }

struct StepProfile {
  std::uint64_t step_ns = 0;                          // the whole step
  std::array<std::uint64_t, kStageCount> stage_ns{};  // each stage and sub-stage, by Stage
  std::uint64_t of(Stage s) const { return stage_ns[static_cast<std::size_t>(s)]; }
};

}  // namespace herd::sim
