// herd::sim::ScenarioMetrics — what the scenario lab measures about a run, tick by tick.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "world.hpp"

namespace herd::sim {

class SpatialGrid;  // the sim's private neighbour grid

struct ScenarioReport {
  std::uint64_t ticks = 0;
  double seconds = 0;
  std::size_t agents = 0;
  std::size_t arrivals = 0;        // agents that reached an arrive/hold goal at least once
  double mean_time_to_arrive = 0;  // s, over those
  double max_time_to_arrive = 0;   // s
  std::uint64_t collisions = 0;    // collision events (agent-agent and agent-obstacle)
  double min_separation =
      std::numeric_limits<double>::infinity();  // min over ticks and pairs of
                                                // distance minus radii (negative: overlap), units
  double max_overlap = 0;                       // largest overlap at the end of any tick, units
  double mean_path_ratio = 0;  // path length / straight line to the first goal, arrived agents
  double max_path_ratio = 0;
  // Agents stalled at some tick by the world's own rule (stall.hpp, World::stalls): moving (or
  // unreachable) below a tenth of their speed for more than StallRule::kStallSeconds.
  std::size_t stalled = 0;
  // Agents that met that rule at some tick without a stall reason (the rule promises none).
  std::size_t stalled_without_reason = 0;
  std::size_t nan_count = 0;      // agents with a non-finite position or velocity, at any tick
  std::size_t out_of_bounds = 0;  // agents whose disc left the world, at any tick
};

class ScenarioMetrics {
 public:
  // Call before the first step: remembers where each agent starts.
  explicit ScenarioMetrics(const World& world);
  ~ScenarioMetrics();
  ScenarioMetrics(ScenarioMetrics&&) noexcept;
  ScenarioMetrics& operator=(ScenarioMetrics&&) noexcept;
  // Call after every step.
  void observe(const World& world);
  ScenarioReport report() const;

 private:
  struct Track {
    AgentId id = 0;
    Vec2 start, last;
    std::optional<Vec2> first_goal;
    double path = 0;
    std::optional<double> arrived_at;
    bool stalled = false, unexplained = false, bad_number = false, escaped = false;
  };
  Track& track_for(const Agent& a);
  void observe_separation(const World& world);

  std::vector<Track> tracks_;  // by agent index order (ids ascending)
  ScenarioReport totals_;
  double start_time_ = 0;
  std::unique_ptr<SpatialGrid> grid_;
  std::vector<Vec2> points_;
};

}  // namespace herd::sim
