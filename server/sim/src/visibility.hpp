// Fog of war: which teams see which agents. A team sees its own agents and every agent within the
// sight (AgentDef::sight, centre to centre) of one of its agents; team 0 is nobody's and sees
// nothing. Pure and deterministic: the same agents give the same masks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "herd/sim/agent.hpp"

namespace herd::sim {

// out[i]: the teams that see agents[i], bit t for team t (AgentDefLimits::kMaxTeam at most).
// For each team present, its agents go in a uniform grid whose cells are as wide as its longest
// sight; an agent is then looked for among the team's agents in the 3 x 3 cells around it,
// stopping at the first that sees it. In an even crowd that first one is close, so the cost is
// about agents x teams; an agent no team member sees costs the team's agents in those cells.
void compute_seen_by(std::span<const Agent> agents, std::vector<std::uint64_t>& out);

}  // namespace herd::sim
