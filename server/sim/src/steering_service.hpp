// herd::sim::SteeringService — the rest of Reynolds' catalogue, a part of the world with its own
// state: what wander, flock, follow_path and follow keep between ticks, by agent id, for the agents
// doing one of them; their desires; the flocks' and followers' tags for the avoidance stage; and
// queueing, which brakes an agent doing `queue` behind a slower one close ahead. The formulas are
// in behaviour.cpp; here the part gathers what each needs (neighbours from the grid, the path, the
// leader). The kept state is world state (checkpoints, the state hash); the queuers' ways are
// remade every tick.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "herd/sim/agent.hpp"
#include "herd/sim/commands.hpp"
#include "herd/sim/world_def.hpp"
#include "proximity.hpp"
#include "rng.hpp"
#include "serial.hpp"

namespace herd::sim {

class SteeringService {
 public:
  // What the steering reads of the world, handed in by the step (the step's context, as Box2D
  // passes its b2StepContext).
  struct Scene {
    std::span<const Agent> agents;  // ordered by id
    const WorldDef& def;
    std::uint64_t tick;       // the tick being stepped from (its step makes tick + 1)
    const Proximity& nearby;  // this tick's grid and slot data
  };

  // What one agent's steering keeps between ticks.
  struct Steering {
    BehaviourKind kind = BehaviourKind::idle;  // the behaviour it was set for
    BehaviourParams params;                    // path empty: in `path`, shared by one command's
    std::shared_ptr<const std::vector<Vec2>> path;  // follow_path
    std::uint64_t key = 0;  // wander: its own stream of random numbers (from the world's)
    Vec2 wander;            // wander: the point on its circle, in its frame (x ahead)
    Vec2 heading;           // its own (wander, flock) or its leader's (follow) last heading
    std::uint32_t leg = 0;  // follow_path: the segment it is on (point leg to leg + 1)
    bool finished = false;  // follow_path, once: it is on its way to the last point
  };
  // Flocks' and followers' tags: apart from every formation's and group order's.
  static constexpr std::uint32_t kFlockTag = 1u << 28, kFollowTag = 1u << 27;

  bool empty() const { return steering_.empty(); }
  // Before any command: it may change a steered agent, whose entry the next step then drops.
  void note_command() { stale_ = stale_ || !steering_.empty(); }
  // set_behaviour's new state for the stateful kinds, for the agents at `indices`.
  void start(const SetBehaviour& cmd, std::span<const Agent> agents,
             const std::vector<std::size_t>& indices, Rng& rng);
  // The agents at `indices` are removed.
  void forget(std::span<const Agent> agents, const std::vector<std::size_t>& indices);
  // At the start of a step: entries of agents gone or doing something else are dropped.
  void prune(std::span<const Agent> agents);

  // The desire of agent i doing wander, flock, follow_path or follow (on the workers: it changes
  // only agent i's entry).
  Desire desire(const Scene& scene, std::size_t i);
  // A flock's members (by group), and a leader's followers, keep apart by reciprocal velocity
  // obstacles, as a converging group's do, not by the anti-gravity pushes, which scatter a flock
  // that is tight enough to align: their tags go into `tags` (by agent index, starting from the
  // formations' `formed` when empty).
  void tag(std::span<const Agent> agents, std::span<const std::uint32_t> formed,
           std::vector<std::uint32_t>& tags) const;

  // Queueing, after pathing, in two passes over the agents (each may run on the workers): some
  // agent does `queue` (else no pass is needed); each queuer's way, before any braking; then each
  // queuer's braking behind the one ahead.
  bool begin_queues(std::span<const Agent> agents);
  void note_way(std::size_t i, const Agent& a, const Desire& d) {
    if (a.behaviour.kind == BehaviourKind::queue) queue_ways_[i] = normalized_or_zero(d.velocity);
  }
  void brake(const Scene& scene, std::size_t i, Desire& d) const;

  // The steering's share of the world's state hash (world_impl.cpp): worlds without any hash as
  // they always have.
  template <class Mix, class MixV, class MixD>
  void hash(Mix&& mix, MixV&& mixv, MixD&& mixd) const;
  // Checkpoints, format 11 (for Save and Load; world_checkpoint.cpp runs it in the format's order).
  template <CheckpointStream S>
  bool serialize(S& s);
  template <CheckpointStream S>
  void serialize_path_table(S& s, std::vector<std::shared_ptr<const std::vector<Vec2>>>& table,
                            std::map<const std::vector<Vec2>*, std::uint32_t>& numbers);

 private:
  std::map<AgentId, Steering> steering_;
  bool stale_ = false;            // a command may have left entries for agents doing otherwise
  std::vector<Vec2> queue_ways_;  // each queuer's way this tick, by agent index (zero: none)
};

template <class Mix, class MixV, class MixD>
void SteeringService::hash(Mix&& mix, MixV&& mixv, MixD&& mixd) const {
  for (const auto& [id, st] : steering_) {
    mix((std::uint64_t{id} << 8) | std::uint64_t(st.kind));
    mixd(st.params.distance);
    mixd(st.params.jitter);
    mixd(st.params.separation);
    mixd(st.params.alignment);
    mixd(st.params.cohesion);
    mix((std::uint64_t{st.params.has_target} << 2) | (std::uint64_t{st.params.loop} << 1) |
        std::uint64_t{st.params.has_offset});
    mixv(st.params.offset);
    if (st.path)
      for (Vec2 v : *st.path) mixv(v);
    mix(st.key);
    mixv(st.wander);
    mixv(st.heading);
    mix((std::uint64_t{st.leg} << 1) | std::uint64_t{st.finished});
  }
}

}  // namespace herd::sim
