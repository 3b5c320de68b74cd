#include "spatial_grid.hpp"

namespace herd::sim {

void SpatialGrid::rebuild(std::span<const Vec2> points, double width, double height, double cell_size) {
  cell_ = std::max(cell_size, 1e-6);
  // Keep the cell count bounded for huge worlds with small agents: coarser cells, same answers.
  while (std::ceil(width / cell_) * std::ceil(height / cell_) > static_cast<double>(kMaxCells)) cell_ *= 2;
  inv_cell_ = 1.0 / cell_;
  cols_ = std::max(1, static_cast<int>(std::ceil(width / cell_)));
  rows_ = std::max(1, static_cast<int>(std::ceil(height / cell_)));
  const std::size_t cells = static_cast<std::size_t>(cols_) * static_cast<std::size_t>(rows_);
  start_.assign(cells + 1, 0);
  cell_of_.resize(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto c = static_cast<std::uint32_t>(cell_y(points[i].y) * cols_ + cell_x(points[i].x));
    cell_of_[i] = c;
    ++start_[c + 1];
  }
  for (std::size_t c = 0; c < cells; ++c) start_[c + 1] += start_[c];
  items_.resize(points.size());
  // Fill in index order (stable), using start_ as a cursor, then shift it back.
  for (std::size_t i = 0; i < points.size(); ++i) items_[start_[cell_of_[i]]++] = static_cast<std::uint32_t>(i);
  for (std::size_t c = cells; c > 0; --c) start_[c] = start_[c - 1];
  start_[0] = 0;
}

}  // namespace herd::sim
