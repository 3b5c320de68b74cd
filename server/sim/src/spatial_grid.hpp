// herd::sim::SpatialGrid — a uniform grid over the world for neighbour queries.
//
// Rebuilt from scratch each time positions change: a counting sort of point indices by cell, O(N
// + cells), no allocation once warm. The grid keeps a copy of the positions in cell order
// (structure of arrays), so a query streams through contiguous memory instead of visiting the
// callers' records one cache line each. Queries visit candidates cell by cell in row-major order
// and, within a cell, in index order, so the order (and every sum over it) is deterministic.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "herd/sim/vec2.hpp"

namespace herd::sim {

class SpatialGrid {
 public:
  static constexpr std::size_t kMaxCells = std::size_t{1} << 22;  // cell size grows past this

  // Sorts the points into cells of (at least) cell_size over [0,width] x [0,height]. Points
  // outside fall into the border cells.
  void rebuild(std::span<const Vec2> points, double width, double height, double cell_size) {
    rebuild(
        points.size(), [&](std::size_t i) { return points[i]; }, width, height, cell_size);
  }
  // The same for n points given by position(i) -> Vec2, without a copy of them first.
  template <class Position>
  void rebuild(std::size_t n, Position&& position, double width, double height, double cell_size);

  // A cell size for n points over width x height: at least min_size and never more than about
  // one cell per point, so the cell table costs at most 4 bytes per point.
  static double cell_size_for(std::size_t n, double width, double height, double min_size) {
    return std::max(min_size,
                    std::sqrt(width * height / static_cast<double>(std::max<std::size_t>(n, 1))));
  }

  // Calls visit(index) for every point in the cells the disc (centre, radius) touches. The caller
  // checks the exact distance: candidates may be up to a cell farther than radius.
  template <class Visit>
  void query(Vec2 centre, double radius, Visit&& visit) const {
    if (items_.empty()) return;
    const int x0 = cell_x(centre.x - radius), x1 = cell_x(centre.x + radius);
    const int y0 = cell_y(centre.y - radius), y1 = cell_y(centre.y + radius);
    for (int cy = y0; cy <= y1; ++cy) {
      const std::size_t row = static_cast<std::size_t>(cy) * static_cast<std::size_t>(cols_);
      for (std::size_t c = row + static_cast<std::size_t>(x0);
           c <= row + static_cast<std::size_t>(x1); ++c)
        for (std::uint32_t k = start_[c]; k < start_[c + 1]; ++k) visit(items_[k]);
    }
  }

  // Calls visit(begin, end) with runs of slots [begin, end) that together hold every point in
  // the cells the disc (centre, radius) touches, skipping cells wholly outside it, in query's
  // order. The cells of one row next to each other are one run: a query is a few tight loops
  // over xs() and ys() rather than a loop per cell.
  template <class Visit>
  void query_runs(Vec2 centre, double radius, Visit&& visit) const {
    if (items_.empty()) return;
    const int y0 = cell_y(centre.y - radius), y1 = cell_y(centre.y + radius);
    const double r2 = radius * radius;
    // A few rows' runs at a time, then their visits: the rows' square roots overlap instead of
    // each waiting for the visit before it.
    constexpr int kRows = 4;
    std::uint32_t begins[kRows], ends[kRows];
    for (int first = y0; first <= y1; first += kRows) {
      const int last = std::min(y1, first + kRows - 1);
      for (int cy = first; cy <= last; ++cy) {
        // The cells of this row within the disc: those whose x span comes within the half-chord.
        const double dy = gap(centre.y, cy, rows_);
        const double half =
            std::sqrt(std::max(r2 - dy * dy, 0.0)) * (1 + 1e-12);  // widened past any rounding
        const int x0 = cell_x(centre.x - half), x1 = cell_x(centre.x + half);
        const std::size_t row = static_cast<std::size_t>(cy) * static_cast<std::size_t>(cols_);
        const bool within = dy * dy <= r2;
        begins[cy - first] = start_[row + static_cast<std::size_t>(x0)];
        ends[cy - first] = within ? start_[row + static_cast<std::size_t>(x1) + 1] : 0;
      }
      for (int cy = first; cy <= last; ++cy)
        if (begins[cy - first] < ends[cy - first]) visit(begins[cy - first], ends[cy - first]);
    }
  }

  // Calls visit(index, position, slot) for every point query_runs covers, in its order. `slot` is
  // the point's place in cell order (index(slot) == index), for data kept in that order.
  template <class Visit>
  void query_points(Vec2 centre, double radius, Visit&& visit) const {
    query_runs(centre, radius, [&](std::uint32_t begin, std::uint32_t end) {
      for (std::uint32_t k = begin; k < end; ++k) visit(items_[k], Vec2{xs_[k], ys_[k]}, k);
    });
  }

  // The points in cell order: slot k holds point index(k), at position(k). Visiting agents in this
  // order keeps neighbouring agents' data together in the caches.
  std::size_t size() const { return items_.size(); }
  std::uint32_t index(std::size_t slot) const { return items_[slot]; }
  Vec2 position(std::size_t slot) const { return {xs_[slot], ys_[slot]}; }
  // Moves slot's point without moving it between cells. Until the next rebuild, a query that
  // must find every point within r of a centre asks for r plus the farthest any point moved.
  void move(std::size_t slot, Vec2 p) {
    xs_[slot] = p.x;
    ys_[slot] = p.y;
  }
  const std::uint32_t* items() const { return items_.data(); }  // index(slot) for every slot
  const double* xs() const { return xs_.data(); }
  const double* ys() const { return ys_.data(); }

  double cell_size() const { return cell_; }
  // How many points share p's cell.
  std::size_t count_in_cell(Vec2 p) const {
    if (items_.empty()) return 0;
    const std::size_t c = static_cast<std::size_t>(cell_y(p.y)) * static_cast<std::size_t>(cols_) +
                          static_cast<std::size_t>(cell_x(p.x));
    return start_[c + 1] - start_[c];
  }

  // How many points the block of three by three cells around p's holds, and how many cells that
  // block has (fewer at the world's edges): the density around p.
  std::pair<std::size_t, int> count_around(Vec2 p) const {
    if (items_.empty()) return {0, 1};
    const int cx = cell_x(p.x), cy = cell_y(p.y);
    const int x0 = std::max(cx - 1, 0), x1 = std::min(cx + 1, cols_ - 1);
    const int y0 = std::max(cy - 1, 0), y1 = std::min(cy + 1, rows_ - 1);
    std::size_t count = 0;
    for (int y = y0; y <= y1; ++y) {
      const std::size_t row = static_cast<std::size_t>(y) * static_cast<std::size_t>(cols_);
      count += start_[row + static_cast<std::size_t>(x1) + 1] -
               start_[row + static_cast<std::size_t>(x0)];
    }
    return {count, (x1 - x0 + 1) * (y1 - y0 + 1)};
  }

  // Heap bytes the grid holds (its arrays' capacities).
  std::size_t memory_bytes() const {
    return (start_.capacity() + items_.capacity()) * sizeof(std::uint32_t) +
           (xs_.capacity() + ys_.capacity()) * sizeof(double);
  }
  int cols() const { return cols_; }
  int rows() const { return rows_; }

 private:
  // Distance along one axis from v to cell i's span; border cells reach out for ever (points
  // outside the world fall into them).
  double gap(double v, int i, int count) const {
    const double lo = i == 0 ? -HUGE_VAL : i * cell_,
                 hi = i == count - 1 ? HUGE_VAL : (i + 1) * cell_;
    return v < lo ? lo - v : v > hi ? v - hi : 0.0;
  }
  // floor(v * inv_cell_) clamped to [0, count - 1], without floor (a call or a dozen instructions
  // on the baseline instruction set): below 1 the clamp gives 0 whatever floor would, and from 1
  // on truncation is floor. NaN falls in cell 0.
  int cell_of(double v, int count) const {
    const double c = v * inv_cell_;
    if (!(c >= 1.0)) return 0;
    if (c >= static_cast<double>(count - 1)) return count - 1;
    return static_cast<int>(c);
  }
  int cell_x(double x) const { return cell_of(x, cols_); }
  int cell_y(double y) const { return cell_of(y, rows_); }

  double cell_ = 1, inv_cell_ = 1;
  int cols_ = 1, rows_ = 1;
  std::vector<std::uint32_t> start_;  // cols*rows + 1 offsets into items_
  std::vector<std::uint32_t> items_;  // point indices sorted by cell
  std::vector<double> xs_, ys_;       // positions, parallel to items_
};

template <class Position>
void SpatialGrid::rebuild(std::size_t n, Position&& position, double width, double height,
                          double cell_size) {
  cell_ = std::max(cell_size, 1e-6);
  // Keep the cell count bounded for huge worlds with small agents: coarser cells, same answers.
  while (std::ceil(width / cell_) * std::ceil(height / cell_) > static_cast<double>(kMaxCells))
    cell_ *= 2;
  inv_cell_ = 1.0 / cell_;
  cols_ = std::max(1, static_cast<int>(std::ceil(width / cell_)));
  rows_ = std::max(1, static_cast<int>(std::ceil(height / cell_)));
  const std::size_t cells = static_cast<std::size_t>(cols_) * static_cast<std::size_t>(rows_);
  start_.assign(cells + 1, 0);
  // A point's cell is computed twice (counting, then filling) rather than stored: 4 bytes per
  // point fewer for a few instructions.
  auto cell_of = [&](Vec2 p) {
    return static_cast<std::uint32_t>(cell_y(p.y) * cols_ + cell_x(p.x));
  };
  for (std::size_t i = 0; i < n; ++i) ++start_[cell_of(position(i)) + 1];
  for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
  items_.resize(n);
  xs_.resize(n);
  ys_.resize(n);
  // Fill in index order (stable), using start_ as a cursor, then shift it back.
  for (std::size_t i = 0; i < n; ++i) {
    const Vec2 p = position(i);
    const std::uint32_t k = start_[cell_of(p)]++;
    items_[k] = static_cast<std::uint32_t>(i);
    xs_[k] = p.x;
    ys_[k] = p.y;
  }
  for (std::size_t c = cells; c > 0; --c) start_[c] = start_[c - 1];
  start_[0] = 0;
}

}  // namespace herd::sim
