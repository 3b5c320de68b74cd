// Finding an agent by id in the world's agent array, which stays sorted by id (ids only grow and
// agents are appended): for the world and its parts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>

#include "herd/sim/agent.hpp"

namespace herd::sim {

// The agent's index, or agents.size() when it is gone.
inline std::size_t index_of(std::span<const Agent> agents, AgentId id) {
  auto it = std::lower_bound(agents.begin(), agents.end(), id,
                             [](const Agent& a, AgentId v) { return a.id < v; });
  return it != agents.end() && it->id == id ? static_cast<std::size_t>(it - agents.begin())
                                            : agents.size();
}

// The same, searching forward from `hint` first (galloping): a walk over ids in increasing order
// costs about one probe each instead of a binary search over every agent.
inline std::size_t index_of_from(std::span<const Agent> agents, AgentId id, std::size_t hint) {
  const std::size_t n = agents.size();
  if (hint >= n || agents[hint].id > id) return index_of(agents, id);
  std::size_t lo = hint, step = 1;  // agents[lo].id <= id
  while (lo + step < n && agents[lo + step].id <= id) {
    lo += step;
    step *= 2;
  }
  const auto first = agents.begin() + static_cast<std::ptrdiff_t>(lo);
  const auto last = agents.begin() + static_cast<std::ptrdiff_t>(std::min(n, lo + step));
  auto it = std::lower_bound(first, last, id, [](const Agent& a, AgentId v) { return a.id < v; });
  return it != agents.end() && it->id == id ? static_cast<std::size_t>(it - agents.begin()) : n;
}

}  // namespace herd::sim
