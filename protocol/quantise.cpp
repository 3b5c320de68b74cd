// Binary snapshots' quantisation (positions, speeds, headings to the wire's integers, with
// hysteresis) and the viewport grid that picks a viewer's agents.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

#include "protocol/snapshot_binary.hpp"
#include "protocol/snapshot_records.hpp"

namespace herd::protocol {

using namespace records;

std::uint8_t position_bits(double size) {
  const double q = std::isfinite(size) && size > 0
                       ? std::min(std::round(size * kPositionScale), 4294967295.0)
                       : 1;
  return static_cast<std::uint8_t>(
      std::clamp<int>(std::bit_width(static_cast<std::uint32_t>(q)), 1, 32));
}

QuantAgent quantise_agent(const RawAgent& a, std::uint8_t xb, std::uint8_t yb,
                          const QuantAgent* prev) {
  QuantAgent q;
  q.id = a.id;
  q.x = quantise_position(a.x, xb);
  q.y = quantise_position(a.y, yb);
  const double speed = std::hypot(a.vx, a.vy);
  const double s = std::isfinite(speed) ? std::min(65535.0, std::round(speed * kSpeedScale)) : 0;
  q.speed = static_cast<std::uint16_t>(s);
  if (speed > 1e-9 && std::isfinite(speed)) {
    const double turns = std::atan2(a.vy, a.vx) / (2 * std::numbers::pi);
    q.heading = static_cast<std::uint8_t>(
        static_cast<std::int64_t>(std::round(turns * kHeadingSteps)) & 0xff);
  } else if (prev) {
    q.heading = prev->heading;  // standing still: the last heading stays
  }
  if (prev) {  // hysteresis: the last step's jitter is not news
    if (std::abs(heading_step(prev->heading, q.heading)) <= 1) q.heading = prev->heading;
    if (std::abs(static_cast<int>(q.speed) - static_cast<int>(prev->speed)) <= 1)
      q.speed = prev->speed;
  }
  const double r =
      std::isfinite(a.r) ? std::clamp(std::round(a.r * kRadiusScale), 0.0, 65535.0) : 0;
  q.radius = static_cast<std::uint16_t>(r);
  q.group = a.group;
  q.team = a.team & 63;
  q.flags = static_cast<std::uint8_t>((a.state & 3) | (a.collided ? 4 : 0) | (a.kinematic ? 8 : 0));
  return q;
}

QuantState quantise(std::uint64_t tick, double time, sim::AvoidanceMode mode, double width,
                    double height, std::span<const AgentState> agents, const QuantState* previous) {
  return quantise_agents(
      tick, time, mode, width, height, agents.size(),
      [&](std::size_t i) {
        const AgentState& a = agents[i];
        return RawAgent{a.id,
                        a.x,
                        a.y,
                        a.vx,
                        a.vy,
                        a.r,
                        a.group,
                        static_cast<std::uint8_t>(a.state),
                        a.collided,
                        a.kinematic,
                        a.team.value_or(0)};
      },
      previous);
}

QuantState coarsen(const QuantState& fine, std::uint8_t scale) {
  QuantState s = fine;
  const unsigned shift = fine.scale > scale ? fine.scale - scale : 0;
  if (shift == 0) return s;
  s.scale = scale;
  s.x_bits = static_cast<std::uint8_t>(std::max<int>(1, fine.x_bits - static_cast<int>(shift)));
  s.y_bits = static_cast<std::uint8_t>(std::max<int>(1, fine.y_bits - static_cast<int>(shift)));
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  const std::uint32_t mx = max_q(s.x_bits), my = max_q(s.y_bits);
  for (QuantAgent& a : s.agents) {
    a.x = static_cast<std::uint32_t>(std::min<std::uint64_t>((a.x + half) >> shift, mx));
    a.y = static_cast<std::uint32_t>(std::min<std::uint64_t>((a.y + half) >> shift, my));
  }
  return s;
}

AgentState dequantise(const QuantAgent& a, std::uint8_t scale) {
  AgentState s;
  s.id = a.id;
  const double per_unit = std::ldexp(1.0, scale);
  s.x = a.x / per_unit;
  s.y = a.y / per_unit;
  const double speed = a.speed / kSpeedScale,
               angle = a.heading * (2 * std::numbers::pi / kHeadingSteps);
  s.vx = speed * std::cos(angle);
  s.vy = speed * std::sin(angle);
  s.r = a.radius / kRadiusScale;
  s.group = a.group;
  if (a.team) s.team = a.team;
  s.state = static_cast<sim::MoveState>(a.flags & 3);
  s.collided = (a.flags & 4) != 0;
  s.kinematic = (a.flags & 8) != 0;
  return s;
}

double viewport_margin(const Viewport& v) { return std::max(v.x1 - v.x0, v.y1 - v.y0) / 8 + 4; }

bool in_view(const Viewport& v, std::uint32_t qx, std::uint32_t qy) {
  const double m = viewport_margin(v), x = qx / kPositionScale, y = qy / kPositionScale;
  return x >= v.x0 - m && x <= v.x1 + m && y >= v.y0 - m && y <= v.y1 + m;
}

// ---- the viewport grid ------------------------------------------------------------------------

void ViewGrid::rebuild(const QuantState& state) {
  const double w = (max_q(state.x_bits) + 1.0) / kPositionScale,
               h = (max_q(state.y_bits) + 1.0) / kPositionScale;
  const double per_cell = 8;  // agents per cell, on average
  const double n = std::max(1.0, static_cast<double>(state.agents.size()) / per_cell);
  const double side = std::max({4.0, std::sqrt(w * h / n), std::sqrt(w * h / 1048576.0)});
  cell_q_ = static_cast<std::uint32_t>(std::min(4294967295.0, std::ceil(side * kPositionScale)));
  cols_ = max_q(state.x_bits) / cell_q_ + 1;
  rows_ = max_q(state.y_bits) / cell_q_ + 1;
  const std::size_t cells = static_cast<std::size_t>(cols_) * rows_;
  start_.assign(cells + 1, 0);
  for (const QuantAgent& a : state.agents) ++start_[(a.y / cell_q_) * cols_ + a.x / cell_q_ + 1];
  for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
  items_.resize(state.agents.size());
  xs_.resize(state.agents.size());
  ys_.resize(state.agents.size());
  std::vector<std::uint32_t> fill(start_.begin(), start_.end() - 1);
  for (std::uint32_t i = 0; i < state.agents.size(); ++i) {
    const QuantAgent& a = state.agents[i];
    const std::uint32_t k = fill[(a.y / cell_q_) * cols_ + a.x / cell_q_]++;
    items_[k] = i;
    xs_[k] = a.x;
    ys_[k] = a.y;
  }
}

void ViewGrid::select(const QuantState& state, const Viewport& view,
                      std::vector<std::uint32_t>& out) const {
  out.clear();
  if (state.agents.empty()) return;
  // The rectangle in quantised units: q / 64 >= x0 - m exactly when q >= ceil((x0 - m) * 64),
  // since q is an integer and * 64 is exact; the same bounds as in_view(), compared as integers.
  const double m = viewport_margin(view);
  auto lower = [](double v) {
    return std::clamp(std::ceil(v * kPositionScale), -1.0, 4294967296.0);
  };
  auto upper = [](double v) {
    return std::clamp(std::floor(v * kPositionScale), -1.0, 4294967296.0);
  };
  const double lx = lower(view.x0 - m), hx = upper(view.x1 + m), ly = lower(view.y0 - m),
               hy = upper(view.y1 + m);
  if (hx < 0 || hy < 0 || lx > hx || ly > hy) return;
  const auto qlx = static_cast<std::int64_t>(lx), qhx = static_cast<std::int64_t>(hx);
  const auto qly = static_cast<std::int64_t>(ly), qhy = static_cast<std::int64_t>(hy);
  auto cell = [&](std::int64_t q, std::uint32_t count) {
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(q / cell_q_, 0, count - 1));
  };
  const std::uint32_t cx0 = cell(std::max<std::int64_t>(qlx, 0), cols_), cx1 = cell(qhx, cols_);
  const std::uint32_t cy0 = cell(std::max<std::int64_t>(qly, 0), rows_), cy1 = cell(qhy, rows_);
  thread_local std::vector<std::uint64_t>
      marks_buffer;  // one bit per agent (select may run on several threads)
  marks_buffer.assign(state.agents.size() / 64 + 1, 0);
  std::uint64_t* const marks =
      marks_buffer.data();  // a local pointer: the loops below keep it in a register
  const std::uint32_t* const items = items_.data();
  const std::uint32_t* const xs = xs_.data();
  const std::uint32_t* const ys = ys_.data();
  std::size_t count = 0;  // every agent is in one cell: a bit is set at most once
  auto mark = [&](std::uint32_t i, bool inside) {
    marks[i / 64] |= static_cast<std::uint64_t>(inside) << (i % 64);
    count += inside;
  };
  // Cells wholly inside the rectangle need no test; the others are tested through the grid's own
  // copy of the positions, in cell order.
  auto inside_span = [&](std::uint32_t cell, std::int64_t lo, std::int64_t hi) {
    const std::int64_t first = static_cast<std::int64_t>(cell) * cell_q_;
    return first >= lo && first + cell_q_ - 1 <= hi;
  };
  std::uint32_t ix0 = cx0;  // the cells of a row wholly inside in x: [ix0, ix1)
  while (ix0 <= cx1 && !inside_span(ix0, qlx, qhx)) ++ix0;
  std::uint32_t ix1 = ix0;
  while (ix1 <= cx1 && inside_span(ix1, qlx, qhx)) ++ix1;
  for (std::uint32_t cy = cy0; cy <= cy1; ++cy) {
    const std::size_t row = static_cast<std::size_t>(cy) * cols_;
    auto test = [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t k = begin; k < end; ++k)
        mark(items[k], xs[k] >= qlx && xs[k] <= qhx && ys[k] >= qly && ys[k] <= qhy);
    };
    if (ix0 == ix1 || !inside_span(cy, qly, qhy)) {
      test(start_[row + cx0], start_[row + cx1 + 1]);  // one run per row
      continue;
    }
    test(start_[row + cx0], start_[row + ix0]);
    for (std::uint32_t k = start_[row + ix0]; k < start_[row + ix1]; ++k) mark(items[k], true);
    test(start_[row + ix1], start_[row + cx1 + 1]);
  }
  // The bits in order give the indices in id order, with no sort; sized once and written through
  // a pointer (push_back would store the list's end at every agent).
  // Room for a little more than this view needs: the list is reused for the viewer's next frame,
  // whose count differs by a few agents.
  if (out.capacity() < count) out.reserve(count + count / 8 + 16);
  out.resize(count);
  std::uint32_t* o = out.data();
  const std::size_t words = marks_buffer.size();
  for (std::size_t word = 0; word < words; ++word)
    for (std::uint64_t bits = marks[word]; bits != 0; bits &= bits - 1)
      *o++ =
          static_cast<std::uint32_t>(word * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
}

}  // namespace herd::protocol
