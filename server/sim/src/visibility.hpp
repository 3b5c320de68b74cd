// Fog of war: which teams see which agents. A team sees its own agents and every agent within the
// sight (AgentDef::sight, centre to centre) of one of its agents; team 0 is nobody's and sees
// nothing. Pure and deterministic: the same agents give the same masks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "herd/sim/agent.hpp"

namespace herd::sim {

// What blocks sight between two points: walls, the tile map's blocked tiles, obstacles
// (WorldImpl's, world_sight.cpp). compute_seen_by asks it of every pair within sight that it
// would otherwise count as seeing.
class SightLines {
 public:
  virtual ~SightLines() = default;
  virtual bool blocked(Vec2 from, Vec2 to) const = 0;
};

// out[i]: the teams that see agents[i], bit t for team t (AgentDefLimits::kMaxTeam at most).
// For each team present, its agents go in a uniform grid whose cells are as wide as its longest
// sight; an agent is then looked for among the team's agents in the 3 x 3 cells around it,
// stopping at the first that sees it. In an even crowd that first one is close, so the cost is
// about agents x teams; an agent no team member sees costs the team's agents in those cells.
// With `lines`, a member sees an agent within its sight only where nothing blocks the line between
// their centres (the gather looks on past a blocked member; the scatter tests each pair not yet
// marked).
void compute_seen_by(std::span<const Agent> agents, std::vector<std::uint64_t>& out,
                     const SightLines* lines = nullptr);

// out[k]: whether team `team` sees points[k] now, as compute_seen_by decides for an agent there
// (within the sight of one of its agents, nothing blocking the line). O(points + team's agents).
void compute_points_seen(std::span<const Agent> agents, std::uint8_t team,
                         std::span<const Vec2> points, std::vector<std::uint8_t>& out,
                         const SightLines* lines = nullptr);

}  // namespace herd::sim
