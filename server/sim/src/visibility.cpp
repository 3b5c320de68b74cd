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

// Every agent's position and sight, read once from the agent array (an Agent is large: reading
// a field or two of each, pass after pass, missed the cache every time).
struct Crowd {
  std::vector<double> x, y, sight;
};

// The grid of `members` with cells at least `reach` wide (or their longest sight, when 0).
void build(const Crowd& crowd, std::span<const std::uint32_t> members, TeamGrid& g,
           double reach = 0) {
  const std::size_t n = members.size();
  g.scratch_cell.resize(n);
  double x0 = crowd.x[members[0]], x1 = x0;
  double y0 = crowd.y[members[0]], y1 = y0;
  double longest = 0;
  for (const std::uint32_t i : members) {
    x0 = std::min(x0, crowd.x[i]);
    x1 = std::max(x1, crowd.x[i]);
    y0 = std::min(y0, crowd.y[i]);
    y1 = std::max(y1, crowd.y[i]);
    longest = std::max(longest, crowd.sight[i]);
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
    const std::uint32_t i = members[k];
    const std::int64_t cx = std::clamp<std::int64_t>(g.col(crowd.x[i]), 0, g.nx - 1);
    const std::int64_t cy = std::clamp<std::int64_t>(g.row(crowd.y[i]), 0, g.ny - 1);
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
    const std::uint32_t i = members[k];
    const std::uint32_t at = g.fill[g.scratch_cell[k]]++;
    g.ids[at] = i;
    g.xs[at] = crowd.x[i];
    g.ys[at] = crowd.y[i];
    g.sight2[at] = crowd.sight[i] * crowd.sight[i];
  }
}

bool sees_from(const TeamGrid& g, Vec2 p, std::int64_t x, std::int64_t y, const SightLines* lines) {
  if (x < 0 || y < 0 || x >= g.nx || y >= g.ny) return false;
  const auto c = static_cast<std::size_t>(y * g.nx + x);
  for (std::uint32_t k = g.start[c]; k < g.start[c + 1]; ++k) {
    const double dx = p.x - g.xs[k], dy = p.y - g.ys[k];
    if (dx * dx + dy * dy <= g.sight2[k] && (!lines || !lines->blocked({g.xs[k], g.ys[k]}, p)))
      return true;
  }
  return false;
}

// The point's own cell first (the likeliest to hold a member near enough), then its neighbours.
bool sees(const TeamGrid& g, Vec2 p, const SightLines* lines) {
  const std::int64_t cx = g.col(p.x), cy = g.row(p.y);
  if (sees_from(g, p, cx, cy, lines)) return true;
  for (std::int64_t y = cy - 1; y <= cy + 1; ++y)
    for (std::int64_t x = cx - 1; x <= cx + 1; ++x)
      if ((x != cx || y != cy) && sees_from(g, p, x, y, lines)) return true;
  return false;
}

}  // namespace

void compute_seen_by(std::span<const Agent> agents, std::vector<std::uint64_t>& out,
                     const SightLines* lines) {
  const std::size_t n = agents.size();
  out.assign(n, 0);
  // Kept from call to call (a server calls this every snapshot): arrays this large are mapped
  // afresh by each allocation, and their first touch faulted every page in again.
  struct Scratch {
    Crowd crowd;
    std::vector<std::vector<std::uint32_t>> members{AgentDefLimits::kMaxTeam + 1};
    std::vector<std::uint32_t> all;
    TeamGrid grid, world;
  };
  thread_local Scratch scratch;
  Crowd& crowd = scratch.crowd;
  crowd.x.resize(n);
  crowd.y.resize(n);
  crowd.sight.resize(n);
  auto& members = scratch.members;
  for (auto& m : members) m.clear();
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Agent& a = agents[i];
    crowd.x[i] = a.position.x;
    crowd.y[i] = a.position.y;
    crowd.sight[i] = a.def.sight;
    x0 = i ? std::min(x0, a.position.x) : a.position.x;
    x1 = i ? std::max(x1, a.position.x) : a.position.x;
    y0 = i ? std::min(y0, a.position.y) : a.position.y;
    y1 = i ? std::max(y1, a.position.y) : a.position.y;
    const std::uint8_t t = a.team;
    if (t == 0 || t > AgentDefLimits::kMaxTeam) continue;
    members[t].push_back(static_cast<std::uint32_t>(i));
    out[i] |= std::uint64_t{1} << t;
  }
  // Two ways to find what a team sees, whichever looks at fewer pairs. Gathering asks, for every
  // agent, whether a member of the team near it sees it (its own cell first, and it stops at the
  // first): about 9 cells an agent, good when the team sees much of the world. Scattering lets
  // every member mark the agents within its sight in a grid of all agents: about 9 cells of
  // agents a member, good when the team's discs of sight cover less than the agents' area.
  const double area = std::max(1.0, (x1 - x0) * (y1 - y0));
  std::vector<std::uint32_t>& all = scratch.all;
  all.clear();
  TeamGrid& grid = scratch.grid;
  TeamGrid& world = scratch.world;
  double world_reach = -1;  // the cell of `world` as built (teams of one sight share it)
  for (std::size_t t = 1; t < members.size(); ++t) {
    if (members[t].empty()) continue;
    const std::uint64_t bit = std::uint64_t{1} << t;
    double reach = 0;
    for (std::uint32_t m : members[t]) reach = std::max(reach, crowd.sight[m]);
    const double cover = static_cast<double>(members[t].size()) * reach * reach;
    build(crowd, members[t], grid);
    if (cover < area && reach > 0) {
      if (all.empty()) {
        all.resize(n);
        for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
      }
      if (reach != world_reach) build(crowd, all, world, reach);
      world_reach = reach;
      // The members in their grid's cell order: neighbouring members look into the same cells.
      for (std::size_t m = 0; m < grid.xs.size(); ++m) {
        const Vec2 p{grid.xs[m], grid.ys[m]};
        const double s2 = grid.sight2[m];
        const std::int64_t cx = world.col(p.x), cy = world.row(p.y);
        for (std::int64_t y = std::max<std::int64_t>(0, cy - 1);
             y <= std::min(world.ny - 1, cy + 1); ++y)
          for (std::int64_t x = std::max<std::int64_t>(0, cx - 1);
               x <= std::min(world.nx - 1, cx + 1); ++x) {
            const auto c = static_cast<std::size_t>(y * world.nx + x);
            for (std::uint32_t k = world.start[c]; k < world.start[c + 1]; ++k) {
              const double dx = p.x - world.xs[k], dy = p.y - world.ys[k];
              if (dx * dx + dy * dy > s2) continue;
              std::uint64_t& seen = out[world.ids[k]];
              if (lines && (seen & bit) == 0 && lines->blocked(p, {world.xs[k], world.ys[k]}))
                continue;
              seen |= bit;
            }
          }
      }
      continue;
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!(out[i] & bit) && sees(grid, {crowd.x[i], crowd.y[i]}, lines)) out[i] |= bit;
  }
}

void compute_points_seen(std::span<const Agent> agents, std::uint8_t team,
                         std::span<const Vec2> points, std::vector<std::uint8_t>& out,
                         const SightLines* lines) {
  out.assign(points.size(), 0);
  Crowd crowd;
  std::vector<std::uint32_t> members;
  for (std::size_t i = 0; i < agents.size(); ++i)
    if (agents[i].team == team && team != 0) members.push_back(static_cast<std::uint32_t>(i));
  if (members.empty() || points.empty()) return;
  crowd.x.resize(agents.size());
  crowd.y.resize(agents.size());
  crowd.sight.resize(agents.size());
  for (const std::uint32_t i : members) {
    crowd.x[i] = agents[i].position.x;
    crowd.y[i] = agents[i].position.y;
    crowd.sight[i] = agents[i].def.sight;
  }
  TeamGrid grid;
  build(crowd, members, grid);
  for (std::size_t k = 0; k < points.size(); ++k) out[k] = sees(grid, points[k], lines) ? 1 : 0;
}

}  // namespace herd::sim
