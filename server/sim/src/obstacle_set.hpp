// herd::sim::ObstacleSet — the world's static circular obstacles: the records in id order, the next
// id (never reused within a run) and a version bumped by every change, which the obstacles' index
// and the hosts compare to notice one. World state (checkpoints, the state hash).
#pragma once

#include <cstdint>
#include <vector>

#include "herd/sim/agent.hpp"

namespace herd::sim {

struct ObstacleSet {
  std::vector<Obstacle> items;
  ObstacleId next_id = 1;
  std::uint64_t version = 0;
};

}  // namespace herd::sim
