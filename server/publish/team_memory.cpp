#include "publish/team_memory.hpp"

#include <algorithm>
#include <cmath>

namespace herd::publish {
namespace {

// Cells of 25 units, or coarser in a large world: at most 256 a side (8 KiB of bits a team).
constexpr double kCell = 25;
constexpr double kMaxCellsPerSide = 256;

}  // namespace

void TeamMemory::clear() {
  for (Team& t : teams_) t = Team{};
}

void TeamMemory::explore(const sim::World& world, std::uint8_t team, Team& t) {
  Explored& e = t.explored;
  const double width = world.def().width, height = world.def().height;
  const double cell = std::max(kCell, std::max(width, height) / kMaxCellsPerSide);
  if (e.cell != cell || e.bits.empty()) {
    e.cell = cell;
    e.cols = static_cast<std::uint32_t>(std::ceil(width / cell));
    e.rows = static_cast<std::uint32_t>(std::ceil(height / cell));
    e.bits.assign(std::size_t{e.cols} * e.rows, 0);
    t.cell_visited.assign(e.bits.size(), 0);
  }
  const auto cell_of = [&](sim::Vec2 p) {
    const auto cx = static_cast<std::uint32_t>(std::clamp(p.x / cell, 0.0, e.cols - 1.0));
    const auto cy = static_cast<std::uint32_t>(std::clamp(p.y / cell, 0.0, e.rows - 1.0));
    return cy * e.cols + cx;
  };
  // A cell a team agent stands in for the first time since the last update (by 1; 2: this
  // update's, already looked around) is looked around from: the unexplored cells within its
  // sight are tested. Cells stood in at the last update are marked 3 and skipped.
  std::vector<std::uint32_t>& fresh = t.scratch_cells;
  fresh.clear();
  std::vector<double> reach;
  for (const sim::Agent& a : world.agents()) {
    if (a.team != team) continue;
    const std::uint32_t c = cell_of(a.position);
    std::uint8_t& v = t.cell_visited[c];
    if (v == 3 || v == 2) {
      v = 2;
      continue;
    }
    v = 2;
    fresh.push_back(c);
    reach.push_back(a.def.sight);
  }
  std::vector<sim::Vec2>& points = t.scratch_points;
  std::vector<std::uint32_t> candidates;
  points.clear();
  for (std::size_t k = 0; k < fresh.size(); ++k) {
    const std::int64_t cx = fresh[k] % e.cols, cy = fresh[k] / e.cols;
    const auto r = static_cast<std::int64_t>(std::ceil(reach[k] / cell)) + 1;
    for (std::int64_t y = std::max<std::int64_t>(0, cy - r);
         y <= std::min<std::int64_t>(e.rows - 1, cy + r); ++y)
      for (std::int64_t x = std::max<std::int64_t>(0, cx - r);
           x <= std::min<std::int64_t>(e.cols - 1, cx + r); ++x) {
        const auto c = static_cast<std::size_t>(y * e.cols + x);
        if (e.bits[c] != 0) continue;
        e.bits[c] = 2;  // a candidate, once
        candidates.push_back(static_cast<std::uint32_t>(c));
        points.push_back(
            {(static_cast<double>(x) + 0.5) * cell, (static_cast<double>(y) + 0.5) * cell});
      }
  }
  world.points_seen(team, points, t.scratch_seen);
  bool changed = false;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    e.bits[candidates[k]] = t.scratch_seen[k] != 0 ? 1 : 0;
    changed = changed || t.scratch_seen[k] != 0;
  }
  if (changed) ++e.version;
  // This update's cells become the last update's; the rest are left.
  for (std::uint8_t& v : t.cell_visited) v = v == 2 ? 3 : 0;
}

void TeamMemory::update(const sim::World& world, std::uint8_t team,
                        const std::vector<std::uint64_t>& seen,
                        std::span<const sim::GameEvent> events) {
  Team& t = teams_[team];
  explore(world, team, t);
  // The enemies in sight now, by id (the agents are ordered by id).
  std::vector<Ghost> now;
  const auto agents = world.agents();
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const sim::Agent& a = agents[i];
    if (a.team == team || (seen[i] >> team & 1) == 0) continue;
    now.push_back({a.id, a.position, a.def.radius, a.group, a.team, world.time()});
  }
  // Those lost from sight since the last update become ghosts where they were last seen, but
  // for those the team saw die.
  std::vector<sim::AgentId> died;
  for (const sim::GameEvent& e : events)
    if (e.kind == sim::EventKind::death && (e.seen >> team & 1) != 0) died.push_back(e.agent);
  std::sort(died.begin(), died.end());
  std::vector<Ghost> lost;
  std::set_difference(t.in_sight.begin(), t.in_sight.end(), now.begin(), now.end(),
                      std::back_inserter(lost),
                      [](const Ghost& a, const Ghost& b) { return a.id < b.id; });
  std::erase_if(lost,
                [&](const Ghost& g) { return std::binary_search(died.begin(), died.end(), g.id); });
  // Ghosts of enemies seen again, or that the team saw die, go.
  std::erase_if(t.ghosts, [&](const Ghost& g) {
    const auto it = std::lower_bound(now.begin(), now.end(), g.id,
                                     [](const Ghost& a, sim::AgentId id) { return a.id < id; });
    return (it != now.end() && it->id == g.id) ||
           std::binary_search(died.begin(), died.end(), g.id);
  });
  std::vector<Ghost> merged;
  merged.reserve(t.ghosts.size() + lost.size());
  std::merge(t.ghosts.begin(), t.ghosts.end(), lost.begin(), lost.end(), std::back_inserter(merged),
             [](const Ghost& a, const Ghost& b) { return a.id < b.id; });
  // A ghost whose place went out of the team's sight and is seen again, empty, goes: the team
  // has looked again. (An enemy that walked out of sight left its last place in sight: that
  // alone does not clear its ghost.)
  if (!merged.empty()) {
    std::vector<sim::Vec2>& places = t.scratch_points;
    places.clear();
    for (const Ghost& g : merged) places.push_back(g.at);
    world.points_seen(team, places, t.scratch_seen);
    std::size_t kept = 0;
    for (std::size_t k = 0; k < merged.size(); ++k) {
      Ghost& g = merged[k];
      const bool in_sight = t.scratch_seen[k] != 0;
      if (!in_sight) g.place_hidden = true;
      if (in_sight && g.place_hidden) continue;
      merged[kept++] = g;
    }
    merged.resize(kept);
  }
  if (merged.size() > kMaxGhosts) {  // the oldest sightings forgotten first
    std::vector<Ghost> by_time = merged;
    std::nth_element(by_time.begin(),
                     by_time.begin() + static_cast<std::ptrdiff_t>(merged.size() - kMaxGhosts),
                     by_time.end(), [](const Ghost& a, const Ghost& b) { return a.time < b.time; });
    const double cut = by_time[merged.size() - kMaxGhosts].time;
    std::erase_if(merged, [&](const Ghost& g) { return g.time < cut; });
    if (merged.size() > kMaxGhosts) merged.resize(kMaxGhosts);
  }
  t.ghosts = std::move(merged);
  // Enemies seen for the first time (ids ascending in both: a merge).
  t.sighted.clear();
  std::vector<sim::AgentId> ever;
  ever.reserve(t.ever_seen.size() + now.size());
  std::size_t k = 0;
  for (const Ghost& g : now) {
    while (k < t.ever_seen.size() && t.ever_seen[k] < g.id) ever.push_back(t.ever_seen[k++]);
    if (k < t.ever_seen.size() && t.ever_seen[k] == g.id) {
      ever.push_back(t.ever_seen[k++]);
      continue;
    }
    t.sighted.push_back(g);
    ever.push_back(g.id);
  }
  ever.insert(ever.end(), t.ever_seen.begin() + static_cast<std::ptrdiff_t>(k), t.ever_seen.end());
  t.ever_seen = std::move(ever);
  t.in_sight = std::move(now);
}

}  // namespace herd::publish
