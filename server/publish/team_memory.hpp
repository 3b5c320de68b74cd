// herd::publish::TeamMemory — what each team remembers under the fog, as StarCraft II and 0 A.D.
// keep it: the ground its agents have explored, and each enemy it lost sight of where it was last
// seen (a ghost: the agent's id, place, size, group, team and the world time it was seen). Kept
// by the server for every team of its players, updated each snapshot from the world and the fog
// (World::seen_by), and sent to the team's players only. A ghost goes when the enemy is seen
// again, when the team saw it die, or when its place, once out of the team's sight, is seen
// again empty.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "herd/sim/world.hpp"

namespace herd::publish {

class TeamMemory {
 public:
  struct Ghost {
    sim::AgentId id = 0;
    sim::Vec2 at;
    double r = 0;
    std::uint8_t group = 0, team = 0;
    double time = 0;            // world seconds when it was last seen
    bool place_hidden = false;  // its place has been out of the team's sight since
    friend bool operator==(const Ghost&, const Ghost&) = default;
  };
  // Explored ground: a grid of square cells over the world, a cell explored once the team has
  // seen its centre. Rows of bits, row-major.
  struct Explored {
    double cell = 0;
    std::uint32_t cols = 0, rows = 0;
    std::vector<std::uint8_t> bits;  // cols * rows, 1: explored
    std::uint64_t version = 0;       // bumped when a cell is explored
  };
  // At most this many ghosts a team (the oldest forgotten first).
  static constexpr std::size_t kMaxGhosts = 4096;

  // Forgets everything (a new world).
  void clear();
  // Team `team`'s memory brought up to the world now; `seen` is World::seen_by of now and
  // `deaths` the deaths since the last update.
  void update(const sim::World& world, std::uint8_t team, const std::vector<std::uint64_t>& seen,
              std::span<const sim::GameEvent> events);
  const std::vector<Ghost>& ghosts(std::uint8_t team) const { return teams_[team].ghosts; }
  // The enemies team `team` saw at the last update for the first time, where they were.
  const std::vector<Ghost>& sighted(std::uint8_t team) const { return teams_[team].sighted; }
  const Explored& explored(std::uint8_t team) const { return teams_[team].explored; }

 private:
  struct Team {
    Explored explored;
    std::vector<Ghost> ghosts;               // by id
    std::vector<Ghost> in_sight;             // the enemies seen at the last update, by id
    std::vector<Ghost> sighted;              // those of them seen then for the first time
    std::vector<sim::AgentId> ever_seen;     // every enemy it has seen, ascending
    std::vector<std::uint8_t> cell_visited;  // cells a team agent has stood in: looked around
    std::vector<sim::Vec2> scratch_points;
    std::vector<std::uint32_t> scratch_cells;
    std::vector<std::uint8_t> scratch_seen;
  };
  void explore(const sim::World& world, std::uint8_t team, Team& t);
  std::vector<Team> teams_ = std::vector<Team>(sim::AgentDefLimits::kMaxTeam + 1);
};

}  // namespace herd::publish
