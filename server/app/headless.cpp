#include "app/headless.hpp"

#include <algorithm>
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
  return {metrics.report(),
          world.state_hash(),
          world.tick(),
          world.def().dt,
          std::vector<sim::Measurement>(measured.begin(), measured.end()),
          std::vector<sim::Source>(world.sources().begin(), world.sources().end()),
          std::vector<sim::Exit>(world.exits().begin(), world.exits().end()),
          world.agents().size()};
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

nlohmann::json area_json(sim::Vec2 min, sim::Vec2 max) {
  return {{"x", min.x}, {"y", min.y}, {"width", max.x - min.x}, {"height", max.y - min.y}};
}

// Each source's and exit's counts, and the evacuation they add up to: agents made and removed,
// those still in the world, and the world time the last one left when every source has made its
// total and no agent is left (null until then).
void add_sources_and_exits(nlohmann::json& j, const HeadlessResult& r) {
  nlohmann::json sources = nlohmann::json::array(), exits = nlohmann::json::array();
  std::uint64_t spawned = 0, removed = 0, last_tick = 0;
  bool done = r.agents == 0;
  for (const sim::Source& s : r.sources) {
    sources.push_back({{"id", s.id},
                       {"area", area_json(s.min, s.max)},
                       {"rate", s.rate},
                       {"total", s.total},
                       {"spawned", s.spawned},
                       {"remaining", s.remaining()}});
    spawned += s.spawned;
    done = done && s.remaining() == 0;
  }
  for (const sim::Exit& e : r.exits) {
    const nlohmann::json last =
        e.last_removal_tick > 0 ? nlohmann::json(static_cast<double>(e.last_removal_tick) * r.dt)
                                : nlohmann::json();
    exits.push_back({{"id", e.id},
                     {"area", area_json(e.min, e.max)},
                     {"removed", e.removed},
                     {"last_out_s", last}});
    removed += e.removed;
    last_tick = std::max(last_tick, e.last_removal_tick);
  }
  j["sources"] = std::move(sources);
  j["exits"] = std::move(exits);
  j["evacuation"] = {
      {"spawned", spawned},
      {"removed", removed},
      {"present", r.agents},
      {"evacuated_s", done && last_tick > 0 ? nlohmann::json(static_cast<double>(last_tick) * r.dt)
                                            : nlohmann::json()}};
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
  if (!r.sources.empty() || !r.exits.empty()) add_sources_and_exits(j, r);
  return j.dump();
}

}  // namespace herd::app
