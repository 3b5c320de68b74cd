// herd::sim::Proximity — what the step knows of who is near whom, remade every step from the
// agents and read by the stages after the grid's: the spatial grid of the agents (and the index
// of the obstacles), the agents' data copied in grid order for the avoidance's neighbour loops,
// their avoidance layers and priorities summed up, the pace stage's tags, and how far any agent
// moved since the grid was built. None of it is world state: a checkpoint holds none of it, and
// the state hash reads none of it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "herd/sim/agent.hpp"
#include "obstacle_index.hpp"
#include "spatial_grid.hpp"

namespace herd::sim {

// What avoidance reads of another agent, by grid slot (stage_grid copies it in cell order).
struct SlotData {
  Vec2 velocity;
  double radius;
};

// The agents' avoidance layers, masks and priorities (AgentDef), summed up: worlds whose agents
// all avoid everyone at one priority (every world before these settings) test none of them.
// Counted again at the start of the step after a spawn, a removal or loading (rules_stale).
struct AvoidanceRules {
  bool masked = false;  // some agent's mask is not every bit: neighbours are filtered by layer
  std::uint8_t min_priority = AgentDefLimits::kDefaultPriority;  // the most important
  std::uint8_t max_priority = AgentDefLimits::kDefaultPriority;  // the least important
  bool ranked() const { return min_priority != max_priority; }
  bool any() const { return masked || ranked(); }
};

// An agent's layer and priority, by grid slot (stage_grid copies them when rules.any()).
struct SlotRules {
  std::uint32_t layer;
  std::uint8_t priority;
};

struct Proximity {
  SpatialGrid grid;  // every agent, by position (stage_grid); integration keeps its points
  ObstacleIndex obstacle_index;
  std::uint64_t obstacle_grid_version = ~std::uint64_t{0};  // the obstacles' version indexed
  SpatialGrid near_grid;  // every agent, fine cells: reciprocal members' nearest (stage_avoidance)
  double max_agent_radius = 0;
  bool uniform_radius = false;  // every agent's radius is max_agent_radius (stage_grid)
  double moved = 0;  // how far any agent moved since the grid was built (stage_integrate)
  // Per-agent scratch: by grid slot during avoidance; then by agent index in the collision stage,
  // whose velocity changes accumulate in `velocity`.
  std::vector<SlotData> slots;
  // Set by the avoidance stage, read by the collision stage, by grid slot (in slot order rather
  // than through the agents' scattered indices): no other agent's centre is nearer the slot's
  // agent than the square root of this at the start of the step (0: not known). The collision
  // stage skips the search for one that cannot touch anyone.
  std::vector<float> clearance2;
  // cfsm mode, by agent index: set by the avoidance stage for an agent that arrives beside its
  // goal, its way to it blocked by those standing there; the states stage gives it that place.
  std::vector<std::uint8_t> takes_place;
  double cutoff_scale = 1;  // push_cutoff_scale(def.avoidance), for this step
  AvoidanceRules rules;
  bool rules_stale = true;
  std::vector<SlotRules> slot_rules;  // by grid slot, while rules.any()
  // This tick's tags for the avoidance stage when a group order, a flock or a leader's followers
  // tag their members (the pace stage's, by agent index); empty when only formations tag theirs.
  std::vector<std::uint32_t> tags;

  // Whether agent a avoids the agent at grid slot k: its layer is in a's mask, and it is not
  // less important than a (the more important leaves the other out: it yields).
  bool heeds(const Agent& a, std::size_t k) const {
    const SlotRules& o = slot_rules[k];
    return (o.layer & a.def.mask) != 0 && o.priority <= a.def.priority;
  }
  // Whether agent a's neighbours need heeds(): it masks some layer out, or some agent is less
  // important than it.
  bool filters_neighbours(const Agent& a) const {
    return (rules.masked && a.def.mask != ~std::uint32_t{0}) ||
           (rules.ranked() && a.def.priority < rules.max_priority);
  }
};

}  // namespace herd::sim
