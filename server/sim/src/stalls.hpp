// herd::sim::StallService — the stall rule's timer and reasons (herd/sim/stall.hpp), one record
// per agent, parallel to the agent array. The step calls update() after the agents' states are
// set: a cheap test of speed for every agent, and a look at the neighbours only for the agents
// past the 2 s mark (on that tick, then every StallRule::kReclassifyTicks).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "herd/sim/agent.hpp"
#include "herd/sim/stall.hpp"
#include "spatial_grid.hpp"

namespace herd::sim {

class StallService {
 public:
  // What update() reads of the world: the agents after this tick's states, their desires, and the
  // agent grid of this step (positions as it was built, `moved` the farthest any agent has gone
  // since).
  struct Scene {
    std::span<const Agent> agents;
    std::span<const Desire> desires;
    const SpatialGrid& grid;
    double moved = 0;
    double max_agent_radius = 0;
    double dt = 0;
  };

  // Advances every agent's timer by one tick and gives the agents past the mark their reason.
  void update(const Scene& scene);

  std::span<const Stall> stalls() const { return stalls_; }
  const std::array<std::uint32_t, kStallReasonCount>& counts() const { return counts_; }

  // Keeps the records parallel to the agents: new agents start at zero; a removal moves agent
  // `from`'s record to `to` (from >= to), then truncate() drops the rest.
  void grow(std::size_t n) {
    if (stalls_.size() < n) stalls_.resize(n);
  }
  void keep(std::size_t from, std::size_t to) {
    if (from < stalls_.size()) stalls_[to] = stalls_[from];
  }
  void truncate(std::size_t n) {
    if (stalls_.size() > n) stalls_.resize(n);
  }
  // For checkpoints (world_checkpoint.cpp): the records, written and read as they are.
  std::vector<Stall>& records() { return stalls_; }
  void recount(double dt);
  std::size_t memory_bytes() const { return stalls_.capacity() * sizeof(Stall); }

  // Why agent i (slow past the mark) is stalled: its record's reason and `by`, from its contacts
  // (the agents within half its radius of touching it). Exposed for the tests of each reason.
  static void classify(const Scene& scene, std::size_t i, Stall& s);

 private:
  std::vector<Stall> stalls_;
  std::array<std::uint32_t, kStallReasonCount> counts_{};
};

}  // namespace herd::sim
