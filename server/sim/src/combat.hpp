// Who is whose enemy, for every behaviour that engages one (attack-move's acquisition, a standing
// agent returning fire): the one rule, as StarCraft II and 0 A.D. decide hostility by player.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "herd/sim/agent.hpp"

namespace herd::sim {

// Whether b is a's enemy. When either has a team (a server with players: every player's agent
// does), agents of other teams, nobody's (team 0) included; between two of nobody's, agents of
// other groups, as before there were teams.
inline bool hostile(const Agent& a, const Agent& b) {
  if (a.team != 0 || b.team != 0) return a.team != b.team;
  return a.group != b.group;
}

// How far beyond touching two discs still count as in contact for a weapon of range 0 (a
// fraction of the smaller radius): the collision stage leaves touching discs a rounding apart.
inline constexpr double kContactSlop = 0.05;

// Whether b is within a's weapon's reach: the gap between their discs at most its range.
inline bool in_reach(const Agent& a, const Agent& b) {
  const double gap = length(b.position - a.position) - a.def.radius - b.def.radius;
  return gap <= a.def.weapon.range + kContactSlop * std::min(a.def.radius, b.def.radius);
}

// A weapon's cooldown in whole ticks of `dt`, at least 1: the seconds rounded up, but for a
// rounding's worth (0.5 s at 60 Hz is 30 ticks, not 31).
inline std::uint32_t cooldown_ticks(double cooldown, double dt) {
  const double ticks = std::ceil(cooldown / dt - 1e-6);
  return static_cast<std::uint32_t>(std::clamp(ticks, 1.0, 4e9));
}

}  // namespace herd::sim
