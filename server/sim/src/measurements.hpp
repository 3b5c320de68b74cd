// herd::sim::MeasurementService — the world's measurement lines and areas
// (herd/sim/measurement.hpp): made and removed by commands, brought up to date after each step from
// where each agent was before it and where it is after, and reported once a second of world time.
// They read the agents and change nothing of them, so a world with measurements moves exactly as
// one without.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "herd/sim/agent.hpp"
#include "herd/sim/measurement.hpp"
#include "serial.hpp"

namespace herd::sim {

class MeasurementService {
 public:
  // A new line from `a` to `b`, or an area with corners `a` (min) and `b` (max), counted from the
  // next step on; `agents` are the world's now (a line needs where each agent starts from).
  MeasurementId add(MeasurementKind kind, Vec2 a, Vec2 b, std::uint64_t tick,
                    std::span<const Agent> agents);
  bool remove(MeasurementId id);  // false: no such measurement
  std::size_t size() const { return items_.size(); }

  // After a step that completed tick `tick` (of `dt` seconds): crossings during it, and the
  // window's report when `tick` ends a second.
  void observe(std::span<const Agent> agents, std::uint64_t tick, double dt);

  std::span<const Measurement> items() const { return items_; }
  // Bumped whenever a measurement is added or removed or a report is made.
  std::uint64_t version() const { return version_; }

  // The checkpoint's part (world_checkpoint.cpp): the measurements, their windows and where
  // each agent was last seen by the lines. What is wrong, or empty.
  template <CheckpointStream S>
  std::string serialize(S& s, double width, double height);

 private:
  // Ticks in a report window: a second of world time, at least one.
  static std::uint64_t window_ticks(double dt);
  void remember(std::span<const Agent> agents);  // where each agent is, for the lines
  bool has_lines() const;
  void report(Measurement& m, std::span<const Agent> agents, std::uint64_t tick, double dt);

  struct Crossing {
    std::uint32_t item = 0;  // index into items_
    double time = 0;         // s
    bool forward = false;
  };

  std::vector<Measurement> items_;  // by id
  MeasurementId next_id_ = 1;
  std::uint64_t version_ = 0;
  // Each agent's position after the last step (or when the first line was added), by id: the
  // start of its move through the next step. Kept only while there are lines.
  std::vector<std::pair<AgentId, Vec2>> last_seen_;
  std::vector<Crossing> crossings_;  // scratch: this step's, sorted by time
};

}  // namespace herd::sim
