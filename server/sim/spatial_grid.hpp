// herd::sim::SpatialGrid — a uniform grid over the world for neighbour queries.
//
// Rebuilt from scratch each time positions change: a counting sort of point indices by cell, O(N
// + cells), no allocation once warm. Queries visit candidates cell by cell in row-major order
// and, within a cell, in index order, so the order (and every sum over it) is deterministic.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "vec2.hpp"

namespace herd::sim {

class SpatialGrid {
 public:
  static constexpr std::size_t kMaxCells = std::size_t{1} << 22;  // cell size grows past this

  // Sorts the points into cells of (at least) cell_size over [0,width] x [0,height]. Points
  // outside fall into the border cells.
  void rebuild(std::span<const Vec2> points, double width, double height, double cell_size);

  // Calls visit(index) for every point in the cells the disc (centre, radius) touches. The caller
  // checks the exact distance: candidates may be up to a cell farther than radius.
  template <class Visit>
  void query(Vec2 centre, double radius, Visit&& visit) const {
    if (items_.empty()) return;
    const int x0 = cell_x(centre.x - radius), x1 = cell_x(centre.x + radius);
    const int y0 = cell_y(centre.y - radius), y1 = cell_y(centre.y + radius);
    for (int cy = y0; cy <= y1; ++cy) {
      const std::size_t row = static_cast<std::size_t>(cy) * static_cast<std::size_t>(cols_);
      for (std::size_t c = row + static_cast<std::size_t>(x0); c <= row + static_cast<std::size_t>(x1); ++c)
        for (std::uint32_t k = start_[c]; k < start_[c + 1]; ++k) visit(items_[k]);
    }
  }

  // As query, but skips a cell whose nearest point is farther from centre than sqrt(limit()).
  // limit() is asked before each cell, so a k-nearest search can tighten it as it goes. A cell
  // is never skipped while limit() is infinite: the visits are then exactly query's.
  template <class Visit, class Limit>
  void query_nearest(Vec2 centre, double radius, Visit&& visit, Limit&& limit) const {
    if (items_.empty()) return;
    const int x0 = cell_x(centre.x - radius), x1 = cell_x(centre.x + radius);
    const int y0 = cell_y(centre.y - radius), y1 = cell_y(centre.y + radius);
    for (int cy = y0; cy <= y1; ++cy) {
      const double dy = gap(centre.y, cy, rows_);
      const std::size_t row = static_cast<std::size_t>(cy) * static_cast<std::size_t>(cols_);
      for (int cx = x0; cx <= x1; ++cx) {
        const double dx = gap(centre.x, cx, cols_);
        if (dx * dx + dy * dy > limit()) continue;
        const std::size_t c = row + static_cast<std::size_t>(cx);
        for (std::uint32_t k = start_[c]; k < start_[c + 1]; ++k) visit(items_[k]);
      }
    }
  }

  double cell_size() const { return cell_; }
  int cols() const { return cols_; }
  int rows() const { return rows_; }

 private:
  // Distance along one axis from v to cell i's span; border cells reach out for ever (points
  // outside the world fall into them).
  double gap(double v, int i, int count) const {
    const double lo = i == 0 ? -HUGE_VAL : i * cell_, hi = i == count - 1 ? HUGE_VAL : (i + 1) * cell_;
    return v < lo ? lo - v : v > hi ? v - hi : 0.0;
  }
  int cell_x(double x) const { return std::clamp(static_cast<int>(std::floor(x * inv_cell_)), 0, cols_ - 1); }
  int cell_y(double y) const { return std::clamp(static_cast<int>(std::floor(y * inv_cell_)), 0, rows_ - 1); }

  double cell_ = 1, inv_cell_ = 1;
  int cols_ = 1, rows_ = 1;
  std::vector<std::uint32_t> start_;  // cols*rows + 1 offsets into items_
  std::vector<std::uint32_t> items_;  // point indices sorted by cell
  std::vector<std::uint32_t> cell_of_;
};

}  // namespace herd::sim
