// The scenario lab's headless run: step a world as fast as it goes, measure it, report as JSON.
#pragma once

#include <cstdint>
#include <string>

#include "herd/sim/metrics.hpp"
#include "herd/sim/world.hpp"

namespace herd::app {

struct HeadlessResult {
  sim::ScenarioReport report;
  std::uint64_t state_hash = 0;
  std::uint64_t final_tick = 0;
};

HeadlessResult run_headless(sim::World& world, std::uint64_t ticks);

// {"scenario": ..., "ticks": ..., "state_hash": "0x...", "metrics": {...}} on one line.
std::string report_json(const std::string& scenario, const HeadlessResult& result);

}  // namespace herd::app
