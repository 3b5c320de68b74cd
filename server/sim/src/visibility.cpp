#include "visibility.hpp"

#include <algorithm>
#include <cmath>

#include "herd/sim/world_def.hpp"

namespace herd::sim {
namespace {

// One team's agents bucketed by cell (counting sort): cell c holds the watchers start[c] ..
// start[c+1] of xs, ys and sight2 (position and squared sight, copied in cell order so that a look
// into a cell reads a few contiguous numbers, not agents scattered over the agent array).
struct TeamGrid {
  double x0 = 0, y0 = 0, cell = 1;
  std::int64_t nx = 1, ny = 1;
  std::vector<std::uint32_t> start, ids;  // ids: each entry's index in the agent array
  std::vector<double> xs, ys, sight2;
  // build()'s own, kept for their capacity.
  std::vector<double> scratch_x, scratch_y, scratch_s;
  std::vector<std::uint32_t> scratch_cell, fill;

  std::int64_t col(double x) const {
    return static_cast<std::int64_t>(std::floor((x - x0) / cell));
  }
  std::int64_t row(double y) const {
    return static_cast<std::int64_t>(std::floor((y - y0) / cell));
  }
};

// At most this many cells a side: a team spread thin over a huge world gets larger cells (each
// still at least its longest sight wide, so 3 x 3 of them cover any sight).
constexpr std::int64_t kMaxCellsPerSide = 1024;

// The grid of `members` with cells at least `reach` wide (or their longest sight, when 0). The
// agents are read once (an Agent is large: three passes over them missed the cache three times).
void build(std::span<const Agent> agents, std::span<const std::uint32_t> members, TeamGrid& g,
           double reach = 0) {
  const std::size_t n = members.size();
  g.scratch_x.resize(n);
  g.scratch_y.resize(n);
  g.scratch_s.resize(n);
  g.scratch_cell.resize(n);
  double x0 = agents[members[0]].position.x, x1 = x0;
  double y0 = agents[members[0]].position.y, y1 = y0;
  double longest = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Agent& a = agents[members[k]];
    const double x = a.position.x, y = a.position.y, sight = a.def.sight;
    g.scratch_x[k] = x;
    g.scratch_y[k] = y;
    g.scratch_s[k] = sight;
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
    longest = std::max(longest, sight);
  }
  if (reach == 0) reach = longest;
  const double span = std::max(x1 - x0, y1 - y0);
  g.cell = std::max({reach, span / kMaxCellsPerSide, 1e-6});
  g.x0 = x0;
  g.y0 = y0;
  g.nx = std::min<std::int64_t>(kMaxCellsPerSide, g.col(x1) + 1);
  g.ny = std::min<std::int64_t>(kMaxCellsPerSide, g.row(y1) + 1);
  const auto cells = static_cast<std::size_t>(g.nx * g.ny);
  g.start.assign(cells + 1, 0);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t cx = std::clamp<std::int64_t>(g.col(g.scratch_x[k]), 0, g.nx - 1);
    const std::int64_t cy = std::clamp<std::int64_t>(g.row(g.scratch_y[k]), 0, g.ny - 1);
    const auto c = static_cast<std::uint32_t>(cy * g.nx + cx);
    g.scratch_cell[k] = c;
    ++g.start[c + 1];
  }
  for (std::size_t c = 0; c < cells; ++c) g.start[c + 1] += g.start[c];
  g.ids.resize(n);
  g.xs.resize(n);
  g.ys.resize(n);
  g.sight2.resize(n);
  g.fill.assign(g.start.begin(), g.start.end() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint32_t at = g.fill[g.scratch_cell[k]]++;
    g.ids[at] = members[k];
    g.xs[at] = g.scratch_x[k];
    g.ys[at] = g.scratch_y[k];
    g.sight2[at] = g.scratch_s[k] * g.scratch_s[k];
  }
}

bool sees_from(const TeamGrid& g, Vec2 p, std::int64_t x, std::int64_t y) {
  if (x < 0 || y < 0 || x >= g.nx || y >= g.ny) return false;
  const auto c = static_cast<std::size_t>(y * g.nx + x);
  for (std::uint32_t k = g.start[c]; k < g.start[c + 1]; ++k) {
    const double dx = p.x - g.xs[k], dy = p.y - g.ys[k];
    if (dx * dx + dy * dy <= g.sight2[k]) return true;
  }
  return false;
}

// The point's own cell first (the likeliest to hold a member near enough), then its neighbours.
bool sees(const TeamGrid& g, Vec2 p) {
  const std::int64_t cx = g.col(p.x), cy = g.row(p.y);
  if (sees_from(g, p, cx, cy)) return true;
  for (std::int64_t y = cy - 1; y <= cy + 1; ++y)
    for (std::int64_t x = cx - 1; x <= cx + 1; ++x)
      if ((x != cx || y != cy) && sees_from(g, p, x, y)) return true;
  return false;
}

}  // namespace

void compute_seen_by(std::span<const Agent> agents, std::vector<std::uint64_t>& out) {
  out.assign(agents.size(), 0);
  std::vector<std::vector<std::uint32_t>> members(AgentDefLimits::kMaxTeam + 1);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const std::uint8_t t = agents[i].team;
    if (t == 0 || t > AgentDefLimits::kMaxTeam) continue;
    members[t].push_back(static_cast<std::uint32_t>(i));
    out[i] |= std::uint64_t{1} << t;
  }
  // Two ways to find what a team sees, whichever looks at fewer pairs. Gathering asks, for every
  // agent, whether a member of the team near it sees it (its own cell first, and it stops at the
  // first): about 9 cells an agent, good when the team sees much of the world. Scattering lets
  // every member mark the agents within its sight in a grid of all agents: about 9 cells of
  // agents a member, good when the team's discs of sight cover less than the agents' area.
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  if (!agents.empty()) {
    x0 = x1 = agents[0].position.x;
    y0 = y1 = agents[0].position.y;
  }
  for (const Agent& a : agents) {
    x0 = std::min(x0, a.position.x);
    x1 = std::max(x1, a.position.x);
    y0 = std::min(y0, a.position.y);
    y1 = std::max(y1, a.position.y);
  }
  const double area = std::max(1.0, (x1 - x0) * (y1 - y0));
  std::vector<std::uint32_t> all;
  std::vector<Vec2> positions;  // every agent's, read once for the teams that gather
  TeamGrid grid, world;
  double world_reach = -1;  // the cell of `world` as built (teams of one sight share it)
  for (std::size_t t = 1; t < members.size(); ++t) {
    if (members[t].empty()) continue;
    const std::uint64_t bit = std::uint64_t{1} << t;
    double reach = 0;
    for (std::uint32_t m : members[t])
      reach = std::max(reach, static_cast<double>(agents[m].def.sight));
    const double cover = static_cast<double>(members[t].size()) * reach * reach;
    if (cover < area && reach > 0) {
      if (all.empty()) {
        all.resize(agents.size());
        for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
      }
      if (reach != world_reach) build(agents, all, world, reach);
      world_reach = reach;
      for (std::uint32_t m : members[t]) {
        const Vec2 p = agents[m].position;
        const double s2 = static_cast<double>(agents[m].def.sight) * agents[m].def.sight;
        const std::int64_t cx = world.col(p.x), cy = world.row(p.y);
        for (std::int64_t y = std::max<std::int64_t>(0, cy - 1);
             y <= std::min(world.ny - 1, cy + 1); ++y)
          for (std::int64_t x = std::max<std::int64_t>(0, cx - 1);
               x <= std::min(world.nx - 1, cx + 1); ++x) {
            const auto c = static_cast<std::size_t>(y * world.nx + x);
            for (std::uint32_t k = world.start[c]; k < world.start[c + 1]; ++k) {
              const double dx = p.x - world.xs[k], dy = p.y - world.ys[k];
              if (dx * dx + dy * dy <= s2) out[world.ids[k]] |= bit;
            }
          }
      }
      continue;
    }
    build(agents, members[t], grid);
    if (positions.empty())
      for (const Agent& a : agents) positions.push_back(a.position);
    for (std::size_t i = 0; i < agents.size(); ++i)
      if (!(out[i] & bit) && sees(grid, positions[i])) out[i] |= bit;
  }
}

}  // namespace herd::sim
