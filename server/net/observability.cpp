#include "net/observability.hpp"

#include <vector>

namespace herd::net {

void Observability::refused(Refusal why, std::string_view who) {
  ++refusals_[static_cast<std::size_t>(why)];
  ++counters_.refusals;
  log_from(who, LogLevel::warn, "refused",
           {{"reason", std::string(to_string(why))}, {"from", std::string(who)}});
}

void Observability::log(LogLevel level, std::string_view event,
                        std::initializer_list<LogField> fields) const {
  if (!sink_) return;
  write_log(format_log(level, event, fields, format_));
}

void Observability::log_from(std::string_view who, LogLevel level, std::string_view event,
                             std::initializer_list<LogField> fields) {
  if (!sink_) return;
  const double now =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  const auto verdict = log_limiter_.admit(address_key(who), now);
  if (!verdict.write) return;
  if (verdict.suppressed == 0) return write_log(format_log(level, event, fields, format_));
  std::vector<LogField> with(fields);
  with.emplace_back("suppressed", std::to_string(verdict.suppressed));
  write_log(format_log(level, event, with, format_));
}

void Observability::write_log(const std::string& line) const {
  const std::lock_guard lock(log_mutex_);
  sink_(line);
}

void Observability::observe_tick(Duration d) {
  const std::lock_guard lock(histogram_mutex_);
  tick_duration_.observe(std::chrono::duration<double>(d).count());
}

void Observability::observe_stages(const sim::StepProfile& p) {
  const std::lock_guard lock(histogram_mutex_);
  for (std::size_t s = 0; s < sim::kStageCount; ++s)
    step_stages_[s].observe(static_cast<double>(p.stage_ns[s]) * 1e-9);
}

void Observability::observe_reply(Duration d) {
  const std::lock_guard lock(histogram_mutex_);
  command_reply_.observe(std::chrono::duration<double>(d).count());
}

MetricsView Observability::metrics() const {
  MetricsView m;
#define HERD_METRICS_COPY(field, type, name, labels, help) m.field = counters_.field;
  HERD_COUNTER_METRICS(HERD_METRICS_COPY)
#undef HERD_METRICS_COPY
  m.snapshots_dropped = counters_.snapshots_dropped();
  for (std::size_t i = 0; i < kErrorCodeCount; ++i) m.errors_by_code[i] = errors_by_code_[i];
  for (std::size_t i = 0; i < kRefusalCount; ++i) m.refusals[i] = refusals_[i];
  m.resident_bytes = resident_memory_bytes();
  m.log_lines_suppressed = log_limiter_.suppressed_total();
  {
    const std::lock_guard lock(histogram_mutex_);
    m.tick_duration = tick_duration_;
    m.command_reply = command_reply_;
    m.step_stages = step_stages_;
  }
  return m;
}

}  // namespace herd::net
