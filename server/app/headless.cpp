#include "app/headless.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace herd::app {

HeadlessResult run_headless(sim::World& world, std::uint64_t ticks,
                            const std::function<void(const sim::World&)>& after_step) {
  sim::ScenarioMetrics metrics(world);
  for (std::uint64_t t = 0; t < ticks; ++t) {
    world.step();
    metrics.observe(world);
    if (after_step) after_step(world);
  }
  const auto measured = world.measurements();
  return {metrics.report(), world.state_hash(), world.tick(), world.def().dt,
          std::vector<sim::Measurement>(measured.begin(), measured.end())};
}

namespace {

// What each measurement summed over the run: a line's crossings each way, their rate over its
// life and the mean time gap between consecutive crossings; an area's mean and peak density and
// mean speed over its once-a-second reports.
nlohmann::json measurements_json(const HeadlessResult& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const sim::Measurement& m : r.measurements) {
    const sim::MeasurementTotals& t = m.totals;
    const double seconds = static_cast<double>(r.final_tick - m.created_tick) * r.dt;
    nlohmann::json j{{"id", m.id}};
    if (m.kind == sim::MeasurementKind::line) {
      j["line"] = {{{"x", m.a.x}, {"y", m.a.y}}, {{"x", m.b.x}, {"y", m.b.y}}};
      j["forward"] = t.forward;
      j["backward"] = t.backward;
      j["seconds"] = seconds;
      j["flow_forward"] = seconds > 0 ? t.forward / seconds : 0.0;
      j["flow_backward"] = seconds > 0 ? t.backward / seconds : 0.0;
      j["mean_gap"] = t.gaps > 0 ? nlohmann::json(t.gap_sum / t.gaps) : nlohmann::json();
    } else {
      j["area"] = {{"x", m.a.x}, {"y", m.a.y}, {"width", m.b.x - m.a.x}, {"height", m.b.y - m.a.y}};
      j["reports"] = t.reports;
      j["mean_density"] = t.reports > 0 ? t.density_sum / t.reports : 0.0;
      j["max_density"] = t.max_density;
      j["mean_speed"] =
          t.speed_reports > 0 ? nlohmann::json(t.speed_sum / t.speed_reports) : nlohmann::json();
    }
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

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
  if (!r.measurements.empty()) j["measurements"] = measurements_json(r);
  return j.dump();
}

}  // namespace herd::app
