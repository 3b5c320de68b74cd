// The scenario lab's headless run: step a world as fast as it goes, measure it, report as JSON.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "herd/sim/metrics.hpp"
#include "herd/sim/world.hpp"

namespace herd::app {

struct HeadlessResult {
  sim::ScenarioReport report;
  std::uint64_t state_hash = 0;
  std::uint64_t final_tick = 0;
  double dt = 0;
  std::vector<sim::Measurement> measurements;  // at the end, with what they summed over the run
  std::vector<sim::Source> sources;            // at the end, with their counts
  std::vector<sim::Exit> exits;
  std::size_t agents = 0;  // present at the end
};

// Steps `world` `ticks` times, measuring it; `after_step`, when given, sees it after each step
// (the trajectory recorder).
HeadlessResult run_headless(sim::World& world, std::uint64_t ticks,
                            const std::function<void(const sim::World&)>& after_step = {});

// {"scenario": ..., "ticks": ..., "state_hash": "0x...", "metrics": {...}} on one line, and
// "measurements": [...] when the world has measurement lines or areas, "sources", "exits" and
// "evacuation" when it has sources or exits.
std::string report_json(const std::string& scenario, const HeadlessResult& result);

}  // namespace herd::app
