// herd::sim measurements: lines that count the agents crossing them (flow each way, time gaps) and
// areas that report their density and mean speed, as pedestrian-dynamics tools measure a crowd
// (PedPy's measurement lines and areas). They observe the world; they change nothing in it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "agent.hpp"
#include "vec2.hpp"

namespace herd::sim {

using MeasurementId = std::uint32_t;

enum class MeasurementKind : std::uint8_t { line, area };

// One report window's figures (a second of world time, ending on a tick that is a whole number of
// seconds; the first window of a new measurement is shorter).
struct MeasurementReport {
  std::uint64_t tick = 0;  // the window's last tick; 0: no report yet
  double seconds = 0;      // the window's length
  // Lines: crossings in the window each way, and the mean time between consecutive crossings
  // (either way; the gap before the window's first crossing counts when there was one before).
  std::uint32_t forward = 0, backward = 0;
  std::optional<double> mean_gap;  // s, absent with fewer than two crossings to measure between
  // Areas, at the window's last tick: agents whose centre is inside, count / area, and their
  // mean speed (absent when there are none).
  std::uint32_t count = 0;
  double density = 0;  // agents per square unit
  std::optional<double> mean_speed;
  friend bool operator==(const MeasurementReport&, const MeasurementReport&) = default;
};

// What a measurement has summed since it was made (the scenario lab's report).
struct MeasurementTotals {
  std::uint64_t forward = 0, backward = 0;  // lines: every crossing each way
  std::uint64_t gaps = 0;                   // lines: time gaps measured, and their sum
  double gap_sum = 0;                       // s
  std::optional<double> last_crossing;      // lines: world time of the last crossing, s
  std::uint64_t reports = 0;                // windows reported
  double density_sum = 0, max_density = 0;  // areas: over reports
  std::uint64_t speed_reports = 0;          // areas: reports with agents inside, and their speeds
  double speed_sum = 0;
  friend bool operator==(const MeasurementTotals&, const MeasurementTotals&) = default;
};

// A measurement line from `a` to `b`, or an area with corners `a` (min) and `b` (max). An agent
// crosses a line when its centre passes from one side to the other within the segment during a
// tick: forward from the line's left to its right as seen going from `a` to `b` on screen (y
// down), that is towards cross(b - a, p - a) > 0; backward the other way.
struct Measurement {
  MeasurementId id = 0;
  MeasurementKind kind = MeasurementKind::line;
  Vec2 a, b;
  std::uint64_t created_tick = 0;  // the world's tick when it was added
  MeasurementTotals totals;
  MeasurementReport last;  // the last complete window
  // The window being counted.
  std::uint32_t window_forward = 0, window_backward = 0;
  std::uint32_t window_gaps = 0;
  double window_gap_sum = 0;
  friend bool operator==(const Measurement&, const Measurement&) = default;
};

// An area's agents now: those whose centre is inside (edges included), count / area, and their
// mean speed (absent when there are none). What its reports and the trajectory frames hold.
struct AreaSample {
  std::uint32_t count = 0;
  double density = 0;
  std::optional<double> mean_speed;
};
AreaSample sample_area(const Measurement& area, std::span<const Agent> agents);

// At most this many measurements in a world.
inline constexpr std::size_t kMaxMeasurements = 64;

}  // namespace herd::sim
