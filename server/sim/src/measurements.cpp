#include "measurements.hpp"

#include <algorithm>
#include <cmath>

namespace herd::sim {
namespace {

double cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }

}  // namespace

AreaSample sample_area(const Measurement& m, std::span<const Agent> agents) {
  AreaSample out;
  double speed = 0;
  for (const Agent& a : agents) {
    const Vec2 p = a.position;
    if (p.x < m.a.x || p.x > m.b.x || p.y < m.a.y || p.y > m.b.y) continue;
    ++out.count;
    speed += length(a.velocity);
  }
  out.density = out.count / ((m.b.x - m.a.x) * (m.b.y - m.a.y));
  if (out.count > 0) out.mean_speed = speed / out.count;
  return out;
}

std::uint64_t MeasurementService::window_ticks(double dt) {
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(1.0 / dt)));
}

bool MeasurementService::has_lines() const {
  return std::any_of(items_.begin(), items_.end(),
                     [](const Measurement& m) { return m.kind == MeasurementKind::line; });
}

void MeasurementService::remember(std::span<const Agent> agents) {
  last_seen_.resize(agents.size());
  for (std::size_t i = 0; i < agents.size(); ++i)
    last_seen_[i] = {agents[i].id, agents[i].position};
}

MeasurementId MeasurementService::add(MeasurementKind kind, Vec2 a, Vec2 b, std::uint64_t tick,
                                      std::span<const Agent> agents) {
  if (kind == MeasurementKind::line && !has_lines()) remember(agents);
  Measurement m;
  m.id = next_id_++;
  m.kind = kind;
  m.a = a;
  m.b = b;
  m.created_tick = tick;
  items_.push_back(m);
  ++version_;
  return m.id;
}

bool MeasurementService::remove(MeasurementId id) {
  auto it =
      std::find_if(items_.begin(), items_.end(), [id](const Measurement& m) { return m.id == id; });
  if (it == items_.end()) return false;
  items_.erase(it);
  if (!has_lines()) last_seen_.clear();
  ++version_;
  return true;
}

void MeasurementService::observe(std::span<const Agent> agents, std::uint64_t tick, double dt) {
  if (items_.empty()) return;
  if (has_lines()) {
    // Each agent's move through the step, from where the lines last saw it (agents and last_seen_
    // both by id: one merge; an agent spawned since has no move yet, a removed one none).
    crossings_.clear();
    const double start = static_cast<double>(tick - 1) * dt;
    std::size_t j = 0;
    for (const Agent& agent : agents) {
      while (j < last_seen_.size() && last_seen_[j].first < agent.id) ++j;
      if (j == last_seen_.size()) break;
      if (last_seen_[j].first != agent.id) continue;
      const Vec2 from = last_seen_[j].second, to = agent.position;
      if (from == to) continue;
      for (std::uint32_t k = 0; k < items_.size(); ++k) {
        const Measurement& m = items_[k];
        if (m.kind != MeasurementKind::line) continue;
        const Vec2 d = m.b - m.a;
        const double s0 = cross(d, from - m.a), s1 = cross(d, to - m.a);
        // Sides: right is cross > 0, anything else left (a centre exactly on the line has not
        // crossed it yet).
        if ((s0 > 0) == (s1 > 0)) continue;
        const double t = s0 / (s0 - s1);  // where along the move it meets the line's extension
        const Vec2 at = from + (to - from) * t;
        const double u = dot(at - m.a, d) / length_squared(d);
        if (u < 0 || u > 1) continue;  // past an end of the segment
        crossings_.push_back({k, start + t * dt, s1 > 0});
      }
    }
    // In time order, so that gaps are between consecutive crossings whichever agent made them.
    std::sort(crossings_.begin(), crossings_.end(), [](const Crossing& x, const Crossing& y) {
      return x.item != y.item ? x.item < y.item : x.time < y.time;
    });
    for (const Crossing& c : crossings_) {
      Measurement& m = items_[c.item];
      if (c.forward) {
        ++m.totals.forward;
        ++m.window_forward;
      } else {
        ++m.totals.backward;
        ++m.window_backward;
      }
      if (m.totals.last_crossing) {
        const double gap = c.time - *m.totals.last_crossing;
        ++m.totals.gaps;
        m.totals.gap_sum += gap;
        ++m.window_gaps;
        m.window_gap_sum += gap;
      }
      m.totals.last_crossing = c.time;
    }
    remember(agents);
  }
  if (tick % window_ticks(dt) != 0) return;
  for (Measurement& m : items_) report(m, agents, tick, dt);
  ++version_;
}

void MeasurementService::report(Measurement& m, std::span<const Agent> agents, std::uint64_t tick,
                                double dt) {
  MeasurementReport r;
  r.tick = tick;
  const std::uint64_t window = window_ticks(dt);
  const std::uint64_t from = std::max(tick >= window ? tick - window : 0, m.created_tick);
  r.seconds = static_cast<double>(tick - from) * dt;
  if (m.kind == MeasurementKind::line) {
    r.forward = m.window_forward;
    r.backward = m.window_backward;
    if (m.window_gaps > 0) r.mean_gap = m.window_gap_sum / m.window_gaps;
    m.window_forward = m.window_backward = m.window_gaps = 0;
    m.window_gap_sum = 0;
  } else {
    const AreaSample now = sample_area(m, agents);
    r.count = now.count;
    r.density = now.density;
    r.mean_speed = now.mean_speed;
    if (r.mean_speed) {
      ++m.totals.speed_reports;
      m.totals.speed_sum += *r.mean_speed;
    }
    m.totals.density_sum += r.density;
    m.totals.max_density = std::max(m.totals.max_density, r.density);
  }
  ++m.totals.reports;
  m.last = r;
}

template <CheckpointStream S>
std::string MeasurementService::serialize(S& s, double width, double height) {
  s.u32(next_id_);
  s.u64(version_);
  auto optional_f64 = [&](std::optional<double>& o) {
    bool has = o.has_value();
    double v = o.value_or(0);
    s.boolean(has);
    s.f64(v);
    if constexpr (S::kLoading) o = has ? std::optional<double>(v) : std::nullopt;
  };
  s.items(items_, 120, [&](Measurement& m) {
    s.u32(m.id);
    s.enumeration(m.kind, MeasurementKind::area);
    s.vec(m.a);
    s.vec(m.b);
    s.u64(m.created_tick);
    MeasurementTotals& t = m.totals;
    s.u64(t.forward);
    s.u64(t.backward);
    s.u64(t.gaps);
    s.f64(t.gap_sum);
    optional_f64(t.last_crossing);
    s.u64(t.reports);
    s.f64(t.density_sum);
    s.f64(t.max_density);
    s.u64(t.speed_reports);
    s.f64(t.speed_sum);
    MeasurementReport& r = m.last;
    s.u64(r.tick);
    s.f64(r.seconds);
    s.u32(r.forward);
    s.u32(r.backward);
    optional_f64(r.mean_gap);
    s.u32(r.count);
    s.f64(r.density);
    optional_f64(r.mean_speed);
    s.u32(m.window_forward);
    s.u32(m.window_backward);
    s.u32(m.window_gaps);
    s.f64(m.window_gap_sum);
    auto in_world = [&](Vec2 p) {
      return std::isfinite(p.x) && std::isfinite(p.y) && p.x >= 0 && p.y >= 0 && p.x <= width &&
             p.y <= height;
    };
    s.check(m.id != 0 && m.id < next_id_ && in_world(m.a) && in_world(m.b) &&
            (m.kind == MeasurementKind::line ? m.a != m.b : m.a.x < m.b.x && m.a.y < m.b.y));
  });
  s.check(items_.size() <= kMaxMeasurements);
  s.items(last_seen_, 20, [&](std::pair<AgentId, Vec2>& e) {
    s.u32(e.first);
    s.vec(e.second);
  });
  if (!s.ok()) return "the checkpoint's measurements are corrupt";
  for (std::size_t i = 1; i < items_.size(); ++i)
    if (items_[i].id <= items_[i - 1].id) return "the checkpoint's measurements are out of order";
  for (std::size_t i = 1; i < last_seen_.size(); ++i)
    if (last_seen_[i].first <= last_seen_[i - 1].first)
      return "the checkpoint's measured positions are out of order";
  return {};
}

template std::string MeasurementService::serialize(Save&, double, double);
template std::string MeasurementService::serialize(Load&, double, double);

}  // namespace herd::sim
