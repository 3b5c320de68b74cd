// herd::protocol — the density layer (PROTOCOL.md "density"): a coarse grid over the world with
// the agents whose centre lies in each cell and their mean speed, for a heat map. Sent at a low
// rate to the sessions that ask for it, computed once for all of them in one pass over the agents
// (DensityBuilder), and written compactly: runs of empty cells as one negative number, speeds as
// steps of the layer's largest mean speed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace herd::protocol {

struct AgentState;
class JsonWriter;

// Cells along the longer side of the world, at most.
inline constexpr std::uint32_t kMaxDensityCells = 64;
// A session that asked is sent a layer at most every this many seconds of snapshots (and at
// once, in the first snapshot after it asked, when none was due for others meanwhile).
inline constexpr double kDensitySeconds = 0.5;
// Mean speeds are sent as 0 to this many steps of the layer's largest mean speed.
inline constexpr std::uint32_t kDensitySpeedSteps = 255;

// The grid over a world of width x height units: square cells of side `cell`, cell (0, 0) at the
// world's corner (0, 0), cols x rows of them covering the world. The cell is the longer side over
// kMaxDensityCells, rounded up to a thousandth (at least 0.001, exact in the wire's three
// decimals): 800 x 600 gives 12.5 (64 x 48), 1000 x 1000 gives 15.625 (64 x 64).
struct DensityGrid {
  double cell = 1;
  std::uint32_t cols = 1, rows = 1;
  static DensityGrid over(double width, double height);
  // The cell of point (x, y), row-major from the top left; points outside the grid count in the
  // nearest cell of its edge (NaN in cell 0).
  std::size_t index(double x, double y) const;
  std::size_t cells() const { return std::size_t{cols} * rows; }
  friend bool operator==(const DensityGrid&, const DensityGrid&) = default;
};

// A layer as the wire carries it, decoded: per cell (row-major from the top left), the agents
// whose centre lies in it, and their mean speed in steps of speed_max / kDensitySpeedSteps
// (0 in an empty cell).
struct DensityLayer {
  DensityGrid grid;
  std::vector<std::uint32_t> count;
  double speed_max = 0;  // units/s: the largest mean speed of a cell, rounded to 3 decimals
  std::vector<std::uint8_t> speed;
  friend bool operator==(const DensityLayer&, const DensityLayer&) = default;
};

// Builds a layer in one pass over the agents: add() each, then finish().
class DensityBuilder {
 public:
  DensityBuilder(double width, double height);
  void add(double x, double y, double vx, double vy) {
    const std::size_t i = grid_.index(x, y);
    ++count_[i];
    speed_sum_[i] += speed(vx, vy);
  }
  DensityLayer finish() const;

 private:
  static double speed(double vx, double vy);
  DensityGrid grid_;
  std::vector<std::uint32_t> count_;
  std::vector<double> speed_sum_;
};

// The layer of a decoded snapshot's agents in a world of width x height (a relay's own).
DensityLayer density_layer(std::span<const AgentState> agents, double width, double height);

// The snapshot's member `"density": {...}`, as one key and value of w's current object.
void write_density(JsonWriter& w, const DensityLayer& layer);
// The same text with a leading comma, to follow a snapshot's members in place of its closing
// brace (a session's own part of a shared snapshot: Hub).
std::string density_member(const DensityLayer& layer);

}  // namespace herd::protocol
