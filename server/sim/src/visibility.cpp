#include "visibility.hpp"

#include <algorithm>
#include <cmath>

#include "herd/sim/world_def.hpp"

namespace herd::sim {
namespace {

// One team's agents bucketed by cell (counting sort): cell c holds order[start[c] .. start[c+1]).
struct TeamGrid {
  double x0 = 0, y0 = 0, cell = 1;
  std::int64_t nx = 1, ny = 1;
  std::vector<std::uint32_t> start, order;

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

void build(std::span<const Agent> agents, std::span<const std::uint32_t> members, TeamGrid& g) {
  double x0 = agents[members[0]].position.x, x1 = x0;
  double y0 = agents[members[0]].position.y, y1 = y0;
  double reach = 0;
  for (std::uint32_t i : members) {
    const Agent& a = agents[i];
    x0 = std::min(x0, a.position.x);
    x1 = std::max(x1, a.position.x);
    y0 = std::min(y0, a.position.y);
    y1 = std::max(y1, a.position.y);
    reach = std::max(reach, static_cast<double>(a.def.sight));
  }
  const double span = std::max(x1 - x0, y1 - y0);
  g.cell = std::max({reach, span / kMaxCellsPerSide, 1e-6});
  g.x0 = x0;
  g.y0 = y0;
  g.nx = std::min<std::int64_t>(kMaxCellsPerSide, g.col(x1) + 1);
  g.ny = std::min<std::int64_t>(kMaxCellsPerSide, g.row(y1) + 1);
  const auto cells = static_cast<std::size_t>(g.nx * g.ny);
  g.start.assign(cells + 1, 0);
  const auto cell_of = [&](const Agent& a) {
    const std::int64_t cx = std::clamp<std::int64_t>(g.col(a.position.x), 0, g.nx - 1);
    const std::int64_t cy = std::clamp<std::int64_t>(g.row(a.position.y), 0, g.ny - 1);
    return static_cast<std::size_t>(cy * g.nx + cx);
  };
  for (std::uint32_t i : members) ++g.start[cell_of(agents[i]) + 1];
  for (std::size_t c = 0; c < cells; ++c) g.start[c + 1] += g.start[c];
  g.order.resize(members.size());
  std::vector<std::uint32_t> fill(g.start.begin(), g.start.end() - 1);
  for (std::uint32_t i : members) g.order[fill[cell_of(agents[i])]++] = i;
}

bool sees_from(std::span<const Agent> agents, const TeamGrid& g, Vec2 p, std::int64_t x,
               std::int64_t y) {
  if (x < 0 || y < 0 || x >= g.nx || y >= g.ny) return false;
  const auto c = static_cast<std::size_t>(y * g.nx + x);
  for (std::uint32_t k = g.start[c]; k < g.start[c + 1]; ++k) {
    const Agent& b = agents[g.order[k]];
    const double dx = p.x - b.position.x, dy = p.y - b.position.y;
    const double s = b.def.sight;
    if (dx * dx + dy * dy <= s * s) return true;
  }
  return false;
}

// The point's own cell first (the likeliest to hold a member near enough), then its neighbours.
bool sees(std::span<const Agent> agents, const TeamGrid& g, Vec2 p) {
  const std::int64_t cx = g.col(p.x), cy = g.row(p.y);
  if (sees_from(agents, g, p, cx, cy)) return true;
  for (std::int64_t y = cy - 1; y <= cy + 1; ++y)
    for (std::int64_t x = cx - 1; x <= cx + 1; ++x)
      if ((x != cx || y != cy) && sees_from(agents, g, p, x, y)) return true;
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
  TeamGrid grid;
  for (std::size_t t = 1; t < members.size(); ++t) {
    if (members[t].empty()) continue;
    build(agents, members[t], grid);
    const std::uint64_t bit = std::uint64_t{1} << t;
    for (std::size_t i = 0; i < agents.size(); ++i)
      if (!(out[i] & bit) && sees(agents, grid, agents[i].position)) out[i] |= bit;
  }
}

}  // namespace herd::sim
