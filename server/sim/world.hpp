// herd::sim::World — the authoritative world. Pure C++: no clocks, no threads, no I/O.
//
// step() is a script of stages over the agent array (see world.cpp). Every stage computes into
// scratch and commits afterwards (RVO2's newVelocity/update split), so no result depends on the
// order agents are visited in. Same WorldDef, same commands at the same ticks => bit-identical
// state, which state_hash() pins.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "agent.hpp"
#include "command.hpp"
#include "world_def.hpp"
#include "rng.hpp"

namespace herd::sim {

class World {
 public:
  // def must satisfy validate(def) (asserted).
  explicit World(const WorldDef& def);

  // Queues a command for the start of the next step.
  void queue(const Command& command, CommandOrigin origin = {});

  // Advances one tick: applies queued commands, then moves every agent by dt.
  void step();

  // Applies a command now, outside a step (scenario set-up). Counts as applied at tick().
  CommandOutcome apply(const Command& command, CommandOrigin origin = {});

  // Outcomes of the commands the last step() applied, in queue order.
  const std::vector<CommandOutcome>& outcomes() const { return outcomes_; }

  const WorldDef& def() const { return def_; }
  std::uint64_t tick() const { return tick_; }          // ticks completed
  double time() const { return static_cast<double>(tick_) * def_.dt; }  // never accumulated
  std::span<const Agent> agents() const { return agents_; }  // ordered by id
  const Agent* find(AgentId id) const;

  // FNV-1a over the exact bits of everything that determines the future: tick, next id, the
  // generator, every agent. Equal hashes <=> (with overwhelming probability) equal worlds.
  std::uint64_t state_hash() const;

 private:
  CommandOutcome apply_set_target(const SetTarget& cmd);
  CommandOutcome apply_spawn(const Spawn& cmd);
  bool inside(Vec2 p) const;
  Agent make_agent(const SpawnAgent& spec);

  // Stages of step().
  void stage_apply_commands();
  void stage_desired_velocities();
  void stage_integrate();
  void stage_update_states();

  WorldDef def_;
  Rng rng_;
  std::uint64_t tick_ = 0;
  AgentId next_id_ = 1;
  std::vector<Agent> agents_;

  struct Queued {
    Command command;
    CommandOrigin origin;
  };
  std::vector<Queued> queue_;
  std::vector<CommandOutcome> outcomes_;

  std::vector<Vec2> desired_;  // scratch: desired velocity per agent
};

}  // namespace herd::sim
