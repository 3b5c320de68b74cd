#include "app/headless.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace herd::app {

HeadlessResult run_headless(sim::World& world, std::uint64_t ticks) {
  sim::ScenarioMetrics metrics(world);
  for (std::uint64_t t = 0; t < ticks; ++t) {
    world.step();
    metrics.observe(world);
  }
  return {metrics.report(), world.state_hash(), world.tick()};
}

std::string report_json(const std::string& scenario, const HeadlessResult& r) {
  const sim::ScenarioReport& m = r.report;
  char hash[24];
  std::snprintf(hash, sizeof hash, "0x%016llx", static_cast<unsigned long long>(r.state_hash));
  // JSON has no infinity: a world of fewer than two agents has no separation to report.
  const nlohmann::json min_sep =
      std::isfinite(m.min_separation) ? nlohmann::json(m.min_separation) : nlohmann::json();
  nlohmann::json j{{"scenario", scenario},
                   {"ticks", r.final_tick},
                   {"state_hash", hash},
                   {"metrics",
                    {{"seconds", m.seconds},
                     {"agents", m.agents},
                     {"arrivals", m.arrivals},
                     {"mean_time_to_arrive", m.mean_time_to_arrive},
                     {"max_time_to_arrive", m.max_time_to_arrive},
                     {"collisions", m.collisions},
                     {"min_separation", min_sep},
                     {"max_overlap", m.max_overlap},
                     {"mean_path_ratio", m.mean_path_ratio},
                     {"max_path_ratio", m.max_path_ratio},
                     {"stalled", m.stalled},
                     {"nan_count", m.nan_count},
                     {"out_of_bounds", m.out_of_bounds}}}};
  return j.dump();
}

}  // namespace herd::app
