// herd-microbench's crowd: sim_bench.cpp's "random" crowd, so that the microbenchmarks measure the
// kernels on the crowd the scenario benchmark steps (by the same rules, though drawn in another
// order: not the same positions). N agents placed uniformly without
// overlap in a square of side sqrt(100 N), radius 1.5, preferred speed 1, dt 0.25, each arriving
// at a uniformly random point and given a new one when within 1 unit of it. The snapshot
// benchmarks step it at 60 ticks per second instead, as herd-bench snapshot does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "../fixtures.hpp"
#include "herd/sim/world.hpp"
#include "rng.hpp"

namespace herd::micro {

inline constexpr double kAreaPerAgent = 100;  // square units per agent, as herd-bench's default
inline constexpr double kRadius = bench::kCrowdRadius;

inline double crowd_side(std::size_t agents) {
  return std::sqrt(kAreaPerAgent * static_cast<double>(agents));
}

// Positions uniform in [1.5, side - 1.5]^2, no two closer than two radii (bench/crowd.hpp).
inline std::vector<sim::Vec2> crowd_positions(std::size_t agents, sim::Rng& rng) {
  std::vector<sim::Vec2> placed;
  bench::place_crowd(crowd_side(agents), agents, rng, [&](sim::Vec2 p) { placed.push_back(p); });
  return placed;
}

inline sim::World random_crowd(std::size_t agents, sim::Rng& rng, double dt = 0.25) {
  const double side = crowd_side(agents);
  const sim::WorldDef def = bench::crowd_def(agents, side, dt);
  sim::World world(def);
  std::vector<sim::SpawnAgent> spawn;
  for (const sim::Vec2 p : crowd_positions(agents, rng)) {
    sim::SpawnAgent s;
    s.position = p;
    s.target = sim::Vec2{rng.uniform(0, side), rng.uniform(0, side)};
    spawn.push_back(s);
  }
  world.apply(sim::Spawn{0, 0, spawn});
  return world;
}

// A new random target for every agent within 1 unit of its own, queued for the next step.
inline void retarget(sim::World& world, sim::Rng& rng) {
  const double side = world.def().width;
  for (const sim::Agent& a : world.agents())
    if (sim::length(a.behaviour.point - a.position) < 1.0)
      world.apply(sim::SetTarget{{false, {a.id}},
                                 {rng.uniform(0, side), rng.uniform(0, side)},
                                 sim::BehaviourKind::arrive,
                                 {}});
}

// The crowd after `ticks` steps of dt, moving (velocities and headings are not all zero as at
// spawn).
inline sim::World moving_crowd(std::size_t agents, int ticks, double dt) {
  sim::Rng rng(7);
  sim::World world = random_crowd(agents, rng, dt);
  for (int t = 0; t < ticks; ++t) {
    retarget(world, rng);
    world.step();
  }
  return world;
}

}  // namespace herd::micro
