#include "sources.hpp"

#include <algorithm>
#include <cmath>

namespace herd::sim {

SourceId SourceService::add_source(const Source& s) {
  sources_.push_back(s);
  sources_.back().id = next_source_id_++;
  ++version_;
  return sources_.back().id;
}

ExitId SourceService::add_exit(Vec2 min, Vec2 max, std::uint64_t tick) {
  Exit e;
  e.id = next_exit_id_++;
  e.min = min;
  e.max = max;
  e.created_tick = tick;
  exits_.push_back(e);
  ++version_;
  return e.id;
}

bool SourceService::remove_source(SourceId id) {
  auto it =
      std::find_if(sources_.begin(), sources_.end(), [id](const Source& s) { return s.id == id; });
  if (it == sources_.end()) return false;
  sources_.erase(it);
  ++version_;
  return true;
}

bool SourceService::remove_exit(ExitId id) {
  auto it = std::find_if(exits_.begin(), exits_.end(), [id](const Exit& e) { return e.id == id; });
  if (it == exits_.end()) return false;
  exits_.erase(it);
  ++version_;
  return true;
}

std::uint32_t SourceService::due(const Source& s, std::uint64_t tick, double dt) {
  if (tick <= s.created_tick) return 0;
  const double made = static_cast<double>(tick - s.created_tick) * s.rate * dt;
  const double due = std::floor(made * (1 + 1e-12));
  return due >= s.total ? s.total : static_cast<std::uint32_t>(due);
}

template <CheckpointStream S>
std::string SourceService::serialize(S& s, double width, double height) {
  s.u32(next_source_id_);
  s.u32(next_exit_id_);
  s.u64(version_);
  const auto in_world = [&](Vec2 p) {
    return std::isfinite(p.x) && std::isfinite(p.y) && p.x >= 0 && p.y >= 0 && p.x <= width &&
           p.y <= height;
  };
  const auto rect = [&](Vec2& min, Vec2& max) {
    s.vec(min);
    s.vec(max);
    s.check(in_world(min) && in_world(max) && min.x < max.x && min.y < max.y);
  };
  const auto optional_f64 = [&](std::optional<double>& o) {
    bool has = o.has_value();
    double v = o.value_or(0);
    s.boolean(has);
    s.f64(v);
    if constexpr (S::kLoading) o = has ? std::optional<double>(v) : std::nullopt;
  };
  s.items(sources_, 100, [&](Source& src) {
    s.u32(src.id);
    rect(src.min, src.max);
    s.f64(src.rate);
    s.u32(src.total);
    s.u64(src.created_tick);
    s.u32(src.spawned);
    AgentTemplate& t = src.agent;
    s.u8(t.group);
    optional_f64(t.radius);
    optional_f64(t.max_speed);
    optional_f64(t.max_force);
    optional_f64(t.mass);
    s.enumeration(t.movement, Movement::kinematic);
    s.enumeration(t.behaviour);
    s.vec(t.target);
    s.enumeration(t.pathing, Pathing::flow);
    s.u8(t.neighbours);
    const bool kind_ok = t.behaviour == BehaviourKind::idle ||
                         (traits(t.behaviour).takes_point && in_world(t.target));
    s.check(src.id != 0 && src.id < next_source_id_ && std::isfinite(src.rate) && src.rate > 0 &&
            src.rate <= SourceLimits::kMaxRate && src.total >= 1 &&
            src.total <= SourceLimits::kMaxTotal && src.spawned <= src.total && kind_ok &&
            (t.neighbours == 4 || t.neighbours == 8));
  });
  s.items(exits_, 60, [&](Exit& e) {
    s.u32(e.id);
    rect(e.min, e.max);
    s.u64(e.created_tick);
    s.u64(e.removed);
    s.u64(e.last_removal_tick);
    s.check(e.id != 0 && e.id < next_exit_id_);
  });
  s.check(sources_.size() <= SourceLimits::kMaxSources && exits_.size() <= SourceLimits::kMaxExits);
  if (!s.ok()) return "the checkpoint's sources or exits are corrupt";
  for (std::size_t i = 1; i < sources_.size(); ++i)
    if (sources_[i].id <= sources_[i - 1].id) return "the checkpoint's sources are out of order";
  for (std::size_t i = 1; i < exits_.size(); ++i)
    if (exits_[i].id <= exits_[i - 1].id) return "the checkpoint's exits are out of order";
  return {};
}

template std::string SourceService::serialize(Save&, double, double);
template std::string SourceService::serialize(Load&, double, double);

}  // namespace herd::sim
