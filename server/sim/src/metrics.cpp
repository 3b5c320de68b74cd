#include "herd/sim/metrics.hpp"

#include <algorithm>
#include <cmath>

#include "spatial_grid.hpp"

namespace herd::sim {

ScenarioMetrics::ScenarioMetrics(const World& world)
    : start_time_(world.time()), grid_(std::make_unique<SpatialGrid>()) {
  for (const Agent& a : world.agents()) track_for(a);
}

ScenarioMetrics::~ScenarioMetrics() = default;
ScenarioMetrics::ScenarioMetrics(ScenarioMetrics&&) noexcept = default;
ScenarioMetrics& ScenarioMetrics::operator=(ScenarioMetrics&&) noexcept = default;

ScenarioMetrics::Track& ScenarioMetrics::track_for(const Agent& a) {
  auto it = std::lower_bound(tracks_.begin(), tracks_.end(), a.id,
                             [](const Track& t, AgentId id) { return t.id < id; });
  if (it == tracks_.end() || it->id != a.id) {
    Track t;
    t.id = a.id;
    t.start = t.last = a.position;
    it = tracks_.insert(it, t);
  }
  return *it;
}

void ScenarioMetrics::observe(const World& world) {
  const double now = world.time() - start_time_;
  const auto agents = world.agents();
  const auto desires = world.desires();
  const auto stalls = world.stalls();
  const std::uint32_t mark = StallRule::mark(world.def().dt);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const Agent& a = agents[i];
    Track& t = track_for(a);
    const bool finite = std::isfinite(a.position.x) && std::isfinite(a.position.y) &&
                        std::isfinite(a.velocity.x) && std::isfinite(a.velocity.y);
    if (!finite) {
      t.bad_number = true;
      continue;
    }
    const double r = a.def.radius - 1e-9;
    if (a.position.x < r || a.position.y < r || a.position.x > world.def().width - r ||
        a.position.y > world.def().height - r)
      t.escaped = true;
    t.path += length(a.position - t.last);
    t.last = a.position;
    const Desire* d = i < desires.size() ? &desires[i] : nullptr;
    if (d && d->goal && d->arriving && !t.first_goal) t.first_goal = d->goal;
    if (a.state == MoveState::arrived && !t.arrived_at) t.arrived_at = now;
    // Stalled: the world's own rule (stall.hpp), so the lab counts what the viewers show.
    if (i < stalls.size() && stalls[i].slow_ticks > mark) {
      t.stalled = true;
      if (!stalls[i].stalled()) t.unexplained = true;
    }
  }
  totals_.collisions += world.collisions().size();
  totals_.ticks += 1;
  totals_.seconds = now;
  totals_.agents = agents.size();
  observe_separation(world);
}

void ScenarioMetrics::observe_separation(const World& world) {
  const auto agents = world.agents();
  if (agents.size() < 2) return;
  points_.resize(agents.size());
  double max_r = 0;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    points_[i] = agents[i].position;
    max_r = std::max(max_r, agents[i].def.radius);
  }
  // Separation is only interesting near contact: look a few radii out.
  const double reach = 6 * max_r;
  grid_->rebuild(points_, world.def().width, world.def().height, reach);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    grid_->query(points_[i], reach, [&](std::uint32_t j) {
      if (j <= i) return;
      const double gap =
          length(points_[j] - points_[i]) - agents[i].def.radius - agents[j].def.radius;
      totals_.min_separation = std::min(totals_.min_separation, gap);
      totals_.max_overlap = std::max(totals_.max_overlap, -gap);
    });
  }
}

ScenarioReport ScenarioMetrics::report() const {
  ScenarioReport r = totals_;
  double arrive_sum = 0, ratio_sum = 0;
  std::size_t ratios = 0;
  for (const Track& t : tracks_) {
    r.nan_count += t.bad_number;
    r.out_of_bounds += t.escaped;
    r.stalled += t.stalled;
    r.stalled_without_reason += t.unexplained;
    if (!t.arrived_at) continue;
    ++r.arrivals;
    arrive_sum += *t.arrived_at;
    r.max_time_to_arrive = std::max(r.max_time_to_arrive, *t.arrived_at);
    if (t.first_goal) {
      const double straight = length(*t.first_goal - t.start);
      if (straight > 1e-6) {
        const double ratio = t.path / straight;
        ratio_sum += ratio;
        ++ratios;
        r.max_path_ratio = std::max(r.max_path_ratio, ratio);
      }
    }
  }
  if (r.arrivals) r.mean_time_to_arrive = arrive_sum / static_cast<double>(r.arrivals);
  if (ratios) r.mean_path_ratio = ratio_sum / static_cast<double>(ratios);
  return r;
}

}  // namespace herd::sim
