// herd::app trajectory frames: what --trajectories writes of the world at one tick, copied on the
// tick thread into reused buffers and written to SQLite by the recorder's own thread
// (trajectories.hpp). build_frame() is the one place that reads the world for a frame.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "herd/sim/world.hpp"

namespace herd::app {

// One agent in a frame: a row of the `trajectory` table. Units are the world's: x, y in world
// units (x to the right, y downwards), vx, vy in units per second. (A team joins the group here,
// and a column of the table, once the world has teams.)
struct AgentRow {
  sim::AgentId id = 0;
  std::uint8_t state = 0;  // sim::MoveState: the database's `states` table names each value
  std::uint8_t group = 0;
  double x = 0, y = 0, vx = 0, vy = 0;
};

// One measurement line in a frame (`measurement_lines`): agents that have crossed it each way since
// it was added, forward and backward as sim::Measurement defines them (herd/sim/measurement.hpp).
struct LineRow {
  sim::MeasurementId id = 0;
  std::uint64_t forward = 0, backward = 0;
};

// One measurement area in a frame (`measurement_areas`): agents whose centre is inside it, their
// number per square unit, and their mean speed (units per second; none when it is empty).
struct AreaRow {
  sim::MeasurementId id = 0;
  std::uint32_t count = 0;
  double density = 0;
  std::optional<double> mean_speed;
};

// The world at one tick. Buffers are reused frame after frame: build_frame() clears and refills
// them, so a recorder's pool allocates only while the world grows.
struct TrajectoryFrame {
  std::uint64_t frame = 0;  // the database's frame number: consecutive over the whole file
  std::uint32_t world = 0;  // which world of the run (a reset or load_scenario begins the next)
  std::uint64_t tick = 0;   // the world's ticks completed
  double time = 0;          // tick * dt, seconds (the world's own time, never accumulated)
  std::vector<AgentRow> agents;  // by id
  std::vector<LineRow> lines;    // by id
  std::vector<AreaRow> areas;    // by id
};

// Fills `frame` (all but its frame and world numbers) from the world between two ticks.
void build_frame(const sim::World& world, TrajectoryFrame& frame);

// What a world of the run was when it began: a row of the `worlds` table (and, for the run's
// first, the meta table's world keys).
struct WorldRow {
  std::uint32_t world = 0;
  std::string began;  // "start", "checkpoint" (restored from one), "replaced" (reset, load)
  std::string scenario;
  std::uint64_t seed = 0;
  std::uint64_t tick = 0;  // the tick it began at (a restored world's is its checkpoint's)
  double tick_rate = 0;    // 1 / dt
  double frame_rate = 0;   // frames per second of world time, at most tick_rate
  double width = 0, height = 0;
};

}  // namespace herd::app
