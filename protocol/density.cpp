// The density layer: its grid, its one pass over the agents, and its JSON (written here, read
// strictly by read_density for server_decode.cpp).
#include "protocol/density.hpp"

#include <algorithm>
#include <cmath>

#include "protocol/fields.hpp"
#include "protocol/json_writer.hpp"
#include "protocol/messages.hpp"

namespace herd::protocol {

DensityGrid DensityGrid::over(double width, double height) {
  // The finest cell that keeps the longer side within kMaxDensityCells cells, rounded up to a
  // whole number of thousandths: the wire's three decimals keep it exact, so a client puts each
  // point in the cell the server did.
  const double longer = std::max({width, height, 0.0});
  double thousandths = std::ceil(longer / kMaxDensityCells * 1000);
  if (!(thousandths >= 1)) thousandths = 1;  // a point of a world, or NaN
  thousandths = std::min(thousandths, 1e15);
  DensityGrid g;
  g.cell = thousandths / 1000;
  const auto cells_along = [&](double side) {
    const double n = std::ceil(side / g.cell);
    if (!(n > 1)) return std::uint32_t{1};  // NaN too
    return static_cast<std::uint32_t>(std::min(n, double{kMaxDensityCells}));
  };
  g.cols = cells_along(width);
  g.rows = cells_along(height);
  return g;
}

std::size_t DensityGrid::index(double x, double y) const {
  const auto along = [&](double v, std::uint32_t n) {
    const double c = std::floor(v / cell);
    // NaN fails both comparisons: cell 0.
    if (!(c > 0)) return std::size_t{0};
    return c >= n ? std::size_t{n - 1} : static_cast<std::size_t>(c);
  };
  return along(y, rows) * cols + along(x, cols);
}

DensityBuilder::DensityBuilder(double width, double height)
    : grid_(DensityGrid::over(width, height)),
      count_(grid_.cells(), 0),
      speed_sum_(grid_.cells(), 0.0) {}

double DensityBuilder::speed(double vx, double vy) {
  const double s = std::sqrt(vx * vx + vy * vy);
  return std::isfinite(s) ? s : 0.0;
}

DensityLayer DensityBuilder::finish() const {
  DensityLayer out;
  out.grid = grid_;
  out.count = count_;
  out.speed.assign(grid_.cells(), 0);
  double largest = 0;
  for (std::size_t i = 0; i < count_.size(); ++i)
    if (count_[i] > 0) largest = std::max(largest, speed_sum_[i] / count_[i]);
  // The scale as the wire writes it (three decimals), so that steps times it is what was meant.
  out.speed_max = std::round(largest * 1000) / 1000;
  if (out.speed_max <= 0) return out;
  for (std::size_t i = 0; i < count_.size(); ++i) {
    if (count_[i] == 0) continue;
    const double steps = speed_sum_[i] / count_[i] / out.speed_max * kDensitySpeedSteps;
    out.speed[i] = static_cast<std::uint8_t>(std::clamp(std::round(steps), 0.0, 255.0));
  }
  return out;
}

DensityLayer density_layer(std::span<const AgentState> agents, double width, double height) {
  DensityBuilder b(width, height);
  for (const AgentState& a : agents) b.add(a.x, a.y, a.vx, a.vy);
  return b.finish();
}

void write_density(JsonWriter& w, const DensityLayer& layer) {
  w.key("density");
  w.begin_object();
  w.field("cell", layer.grid.cell);
  w.field("cols", layer.grid.cols);
  w.field("rows", layer.grid.rows);
  // Counts row by row; a run of n empty cells is written -n (most of a sparse world is empty).
  w.key("count");
  w.begin_array();
  std::uint64_t empty = 0;
  for (const std::uint32_t n : layer.count) {
    if (n == 0) {
      ++empty;
      continue;
    }
    if (empty > 0) {
      w.signed_integer(-static_cast<std::int64_t>(empty));
      empty = 0;
    }
    w.integer(n);
  }
  if (empty > 0) w.signed_integer(-static_cast<std::int64_t>(empty));
  w.end_array();
  w.field("speed_max", layer.speed_max);
  // One speed per cell that has agents, in the order of `count`.
  w.key("speed");
  w.begin_array();
  for (std::size_t i = 0; i < layer.count.size(); ++i)
    if (layer.count[i] > 0) w.integer(layer.speed[i]);
  w.end_array();
  w.end_object();
}

std::string density_member(const DensityLayer& layer) {
  std::string out = ",";
  out.reserve(64 + layer.count.size() * 6);
  JsonWriter w(out);
  write_density(w, layer);
  return out;
}

namespace detail {

DensityLayer read_density(const json& v, const std::string& where) {
  Fields f(v, where);
  DensityLayer d;
  d.grid.cell = as_number(f.need("cell"), f.name("cell"), 0, kHuge);
  if (!(d.grid.cell > 0)) bad(f.name("cell"), "must be greater than 0");
  d.grid.cols =
      static_cast<std::uint32_t>(as_uint(f.need("cols"), f.name("cols"), kMaxDensityCells));
  d.grid.rows =
      static_cast<std::uint32_t>(as_uint(f.need("rows"), f.name("rows"), kMaxDensityCells));
  if (d.grid.cols == 0 || d.grid.rows == 0) bad(f.name("cols"), "and 'rows' must be at least 1");
  const std::size_t cells = d.grid.cells();
  const json& count = f.need("count");
  if (!count.is_array() || count.size() > cells)
    bad(f.name("count"), "must be an array of at most cols * rows numbers");
  d.count.reserve(cells);
  std::size_t occupied = 0;
  for (const json& n : count) {
    if (!n.is_number_integer()) bad(f.name("count"), "must hold integers");
    const bool run = !n.is_number_unsigned() && n.get<std::int64_t>() < 0;
    if (run) {
      // Negated in unsigned arithmetic: -INT64_MIN does not overflow there.
      const std::uint64_t empty = 0 - static_cast<std::uint64_t>(n.get<std::int64_t>());
      if (empty > cells - d.count.size())
        bad(f.name("count"), "covers more than cols * rows cells");
      d.count.insert(d.count.end(), static_cast<std::size_t>(empty), 0);
      continue;
    }
    const std::uint32_t agents = as_u32(n, f.name("count"));
    if (agents == 0) bad(f.name("count"), "writes empty cells as negative runs, never 0");
    if (d.count.size() == cells) bad(f.name("count"), "covers more than cols * rows cells");
    d.count.push_back(agents);
    ++occupied;
  }
  if (d.count.size() != cells) bad(f.name("count"), "must cover exactly cols * rows cells");
  d.speed_max = as_number(f.need("speed_max"), f.name("speed_max"), 0, kHuge);
  const json& speed = f.need("speed");
  if (!speed.is_array() || speed.size() != occupied)
    bad(f.name("speed"), "must hold one number per cell with agents");
  d.speed.assign(cells, 0);
  std::size_t k = 0;
  for (std::size_t i = 0; i < cells; ++i) {
    if (d.count[i] == 0) continue;
    d.speed[i] =
        static_cast<std::uint8_t>(as_uint(speed[k++], f.name("speed"), kDensitySpeedSteps));
  }
  f.no_others();
  return d;
}

}  // namespace detail
}  // namespace herd::protocol
