#include "net/observability_text.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <span>

namespace herd::net {

namespace {

void line(std::string& out, std::string_view name, std::uint64_t value,
          std::string_view labels = {}) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  out += std::to_string(value);
  out += '\n';
}

void real_line(std::string& out, std::string_view name, double value, std::string_view labels) {
  out += name;
  out += '{';
  out += labels;
  out += "} ";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  out += text;
  out += '\n';
}

void head(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

// A histogram's rows: its buckets, sum and count, each with `labels` (e.g. stage="grid") first.
template <class H>
void histogram_rows(std::string& out, std::string_view name, const H& h,
                    std::string_view labels = {}) {
  const std::string bucket = std::string(name) + "_bucket";
  const std::string prefix = labels.empty() ? std::string() : std::string(labels) + ",";
  std::uint64_t cumulative = 0;
  char bound[32];
  for (std::size_t i = 0; i < H::kBounds.size(); ++i) {
    cumulative += h.counts[i];
    std::snprintf(bound, sizeof bound, "le=\"%g\"", H::kBounds[i]);
    line(out, bucket, cumulative, prefix + bound);
  }
  line(out, bucket, h.count, prefix + "le=\"+Inf\"");
  char sum[64];
  std::snprintf(sum, sizeof sum, " %.9f\n", h.sum);
  out += name;
  out += "_sum";
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += sum;
  line(out, std::string(name) + "_count", h.count, labels);
}

void histogram(std::string& out, const char* name, const char* help, const TickHistogram& h) {
  head(out, name, "histogram", help);
  histogram_rows(out, name, h);
}

// The world's measurement lines and areas (add_measurement), labelled by id: lines' crossings
// and last second's flow each way and mean time gap; areas' count, density and mean speed.
void measurement_rows(std::string& out, const std::vector<protocol::MeasurementState>& all) {
  auto id = [](const protocol::MeasurementState& m) {
    return "id=\"" + std::to_string(m.id) + "\"";
  };
  head(out, "herd_measurement_crossings_total", "counter",
       "Agents that crossed a measurement line, each way, since it was added.");
  for (const auto& m : all) {
    if (!m.line) continue;
    line(out, "herd_measurement_crossings_total", m.forward, id(m) + ",direction=\"forward\"");
    line(out, "herd_measurement_crossings_total", m.backward, id(m) + ",direction=\"backward\"");
  }
  head(out, "herd_measurement_flow", "gauge",
       "Agents crossing a measurement line per second, each way, over the last report window.");
  for (const auto& m : all) {
    if (!m.line || m.tick == 0) continue;
    real_line(out, "herd_measurement_flow", m.flow_forward, id(m) + ",direction=\"forward\"");
    real_line(out, "herd_measurement_flow", m.flow_backward, id(m) + ",direction=\"backward\"");
  }
  head(out, "herd_measurement_mean_gap_seconds", "gauge",
       "Mean time between consecutive crossings of a measurement line in the last window.");
  for (const auto& m : all)
    if (m.line && m.mean_gap)
      real_line(out, "herd_measurement_mean_gap_seconds", *m.mean_gap, id(m));
  head(out, "herd_measurement_agents", "gauge",
       "Agents whose centre is inside a measurement area, at its last report.");
  for (const auto& m : all)
    if (!m.line && m.tick != 0) line(out, "herd_measurement_agents", m.count, id(m));
  head(out, "herd_measurement_density", "gauge",
       "Agents per square unit inside a measurement area, at its last report.");
  for (const auto& m : all)
    if (!m.line && m.tick != 0) real_line(out, "herd_measurement_density", m.density, id(m));
  head(out, "herd_measurement_mean_speed", "gauge",
       "Mean speed (units/s) of the agents inside a measurement area, at its last report.");
  for (const auto& m : all)
    if (!m.line && m.mean_speed)
      real_line(out, "herd_measurement_mean_speed", *m.mean_speed, id(m));
}

// The world's sources and exits (add_source, add_exit), labelled by id: what each source has made
// and has still to make, what each exit has removed.
void source_rows(std::string& out, const std::vector<protocol::SourceState>& sources,
                 const std::vector<protocol::ExitState>& exits) {
  auto id = [](std::uint32_t v) { return "id=\"" + std::to_string(v) + "\""; };
  head(out, "herd_source_spawned_total", "counter",
       "Agents a source has spawned since it was added.");
  for (const auto& s : sources) line(out, "herd_source_spawned_total", s.spawned, id(s.id));
  head(out, "herd_source_remaining", "gauge", "Agents a source has still to spawn.");
  for (const auto& s : sources) line(out, "herd_source_remaining", s.remaining, id(s.id));
  head(out, "herd_exit_removed_total", "counter",
       "Agents an exit has removed (their centre reached it) since it was added.");
  for (const auto& e : exits) line(out, "herd_exit_removed_total", e.removed, id(e.id));
}

}  // namespace

std::string render_prometheus(const MetricsView& m) {
  std::string out;
  out.reserve(4096);
  histogram(out, "herd_tick_duration_seconds", "Time one world step took.", m.tick_duration);
  histogram(out, "herd_command_reply_seconds",
            "From reading a command or control to its answer queued for the client (the wait for "
            "the tick thread included).",
            m.command_reply);
  head(out, "herd_step_stage_seconds", "histogram",
       "Time each stage of the last world steps took.");
  for (std::size_t s = 0; s < sim::kStageCount; ++s)
    histogram_rows(out, "herd_step_stage_seconds", m.step_stages[s],
                   "stage=\"" + std::string(sim::stage_name(static_cast<sim::Stage>(s))) + "\"");
  std::string_view series;  // the last row's series: its head is written once
#define HERD_METRICS_RENDER(field, type, name, labels, help) \
  if (series != name) head(out, name, #type, help);          \
  series = name;                                             \
  line(out, name, m.field, labels);
  HERD_COUNTER_METRICS(HERD_METRICS_RENDER)
#undef HERD_METRICS_RENDER
  head(out, "herd_snapshots_dropped_total", "counter",
       "Snapshots not written to a session (latest wins), all reasons.");
  line(out, "herd_snapshots_dropped_total", m.snapshots_dropped);
  head(out, "herd_errors_total", "counter", "Error messages sent, by code.");
  for (std::size_t c = 0; c < kErrorCodeCount; ++c) {
    const std::string label =
        "code=\"" + std::string(protocol::to_string(static_cast<protocol::ErrorCode>(c))) + "\"";
    line(out, "herd_errors_total", m.errors_by_code[c], label);
  }
  head(out, "herd_refusals_total", "counter",
       "Limits hit by clients, by reason (PROTOCOL.md, Limits).");
  for (std::size_t r = 0; r < kRefusalCount; ++r)
    line(out, "herd_refusals_total", m.refusals[r],
         "reason=\"" + std::string(to_string(static_cast<Refusal>(r))) + "\"");
  head(out, "herd_connections", "gauge",
       "Open connections: HTTP (and upgrades in progress) and WebSocket, greeted or not.");
  line(out, "herd_connections", m.http_connections, "kind=\"http\"");
  line(out, "herd_connections", m.ws_connections, "kind=\"websocket\"");
  head(
      out, "herd_connections_max", "gauge",
      "The cap on open connections in force (max_connections, or lower for the descriptor limit).");
  line(out, "herd_connections_max", m.max_connections);
  head(out, "herd_accept_failures_total", "counter",
       "Accepts that failed (out of file descriptors, ...); the listener pauses and retries, with "
       "growing pauses.");
  line(out, "herd_accept_failures_total", m.accept_failures);
  head(out, "herd_log_lines_suppressed_total", "counter",
       "Log lines clients caused beyond their budget, not written.");
  line(out, "herd_log_lines_suppressed_total", m.log_lines_suppressed);
  if (m.relay) {
    head(out, "herd_relay_upstream_connected", "gauge",
         "1 while the relay's link to its upstream server is up, 0 while it reconnects.");
    line(out, "herd_relay_upstream_connected", m.relay_connected);
    head(out, "herd_relay_connects_total", "counter",
         "Times the relay's link to its upstream server was made (the first included).");
    line(out, "herd_relay_connects_total", m.relay_connects);
    head(out, "herd_relay_reconnects_total", "counter",
         "Times the relay's link to its upstream server was made again after a loss.");
    line(out, "herd_relay_reconnects_total", m.relay_connects > 0 ? m.relay_connects - 1 : 0);
    head(out, "herd_relay_upstream_snapshots_total", "counter",
         "Snapshots received from the upstream server.");
    line(out, "herd_relay_upstream_snapshots_total", m.relay_snapshots);
    head(out, "herd_relay_upstream_bytes_total", "counter",
         "Bytes of snapshots received from the upstream server.");
    line(out, "herd_relay_upstream_bytes_total", m.relay_bytes);
    head(out, "herd_relay_upstream_snapshots_skipped_total", "counter",
         "Snapshots from the upstream server not relayed: a newer one already waited (the relay "
         "was behind).");
    line(out, "herd_relay_upstream_snapshots_skipped_total", m.relay_skipped);
    head(out, "herd_relay_command_links", "gauge",
         "Links to the upstream server that carry one commander's commands.");
    line(out, "herd_relay_command_links", m.relay_command_links);
  }
  if (!m.measurements.empty()) measurement_rows(out, m.measurements);
  if (!m.sources.empty() || !m.exits.empty()) source_rows(out, m.sources, m.exits);
  if (m.trajectories) {
    head(out, "herd_trajectory_frames_written_total", "counter",
         "Trajectory frames written to the --trajectories database.");
    line(out, "herd_trajectory_frames_written_total", m.trajectory_frames_written);
    head(out, "herd_trajectory_frames_dropped_total", "counter",
         "Trajectory frames not written: the writer was behind by its whole queue, or had failed.");
    line(out, "herd_trajectory_frames_dropped_total", m.trajectory_frames_dropped);
    head(out, "herd_trajectory_batches_total", "counter",
         "Transactions of trajectory frames committed (one per batch the writer took).");
    line(out, "herd_trajectory_batches_total", m.trajectory_batches);
    head(out, "herd_trajectory_queued_frames", "gauge",
         "Trajectory frames waiting for the writer.");
    line(out, "herd_trajectory_queued_frames", m.trajectory_queued);
    head(out, "herd_trajectory_write_failed", "gauge",
         "1 once writing the trajectory database has failed (the recording stopped), else 0.");
    line(out, "herd_trajectory_write_failed", m.trajectory_failed);
  }
  head(out, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
  line(out, "process_resident_memory_bytes", m.resident_bytes);
  return out;
}

std::string_view to_string(Refusal r) {
  static constexpr std::string_view kNames[] = {"message_too_big",
                                                "invalid_utf8",
                                                "too_deep",
                                                "rate_limited",
                                                "flooding",
                                                "bad_token",
                                                "origin",
                                                "sessions",
                                                "sessions_per_address",
                                                "spawn_too_large",
                                                "control_queue_full",
                                                "slow_consumer",
                                                "idle_timeout",
                                                "close_timeout",
                                                "connections",
                                                "bad_handshake",
                                                "host",
                                                "token_throttled",
                                                "connections_per_address",
                                                "http_rate_limited",
                                                "hello_timeout"};
  static_assert(std::size(kNames) == kRefusalCount);
  return kNames[static_cast<std::size_t>(r)];
}

std::uint64_t resident_memory_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int n = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (n != 2) return 0;
  return static_cast<std::uint64_t>(resident) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

namespace {

// A text-format value: bare when it is safe, else quoted with escapes (see format_log).
void append_value(std::string& out, std::string_view value) {
  const bool bare = !value.empty() && std::none_of(value.begin(), value.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c <= 0x20 || c == 0x7f || ch == '"' || ch == '=' || ch == '\\';
  });
  if (bare) {
    out += value;
    return;
  }
  out += '"';
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

std::string format_fields(LogLevel level, std::string_view event, const LogField* fields,
                          std::size_t count, LogFormat format) {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const std::time_t secs = system_clock::to_time_t(now);
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(ms));
  static constexpr std::string_view kLevels[] = {"debug", "info", "warn", "error"};
  const std::string_view level_name = kLevels[static_cast<int>(level)];
  if (format == LogFormat::json) {
    nlohmann::ordered_json line{{"time", stamp}, {"level", level_name}, {"event", event}};
    for (const auto& [key, value] : std::span(fields, count)) line[std::string(key)] = value;
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string out = stamp;
  out += ' ';
  out += level_name;
  out += ' ';
  out += event;
  for (const auto& [key, value] : std::span(fields, count)) {
    out += ' ';
    out += key;
    out += '=';
    append_value(out, value);
  }
  return out;
}

}  // namespace

std::string format_log(LogLevel level, std::string_view event,
                       std::initializer_list<LogField> fields, LogFormat format) {
  return format_fields(level, event, fields.begin(), fields.size(), format);
}

std::string format_log(LogLevel level, std::string_view event, const std::vector<LogField>& fields,
                       LogFormat format) {
  return format_fields(level, event, fields.data(), fields.size(), format);
}

LogLimiter::LogLimiter(double rate, double burst, double global_rate, double global_burst)
    : rate_(rate), burst_(burst), global_(global_rate, global_burst, 0.0) {}

LogLimiter::Verdict LogLimiter::admit(std::string_view source, double now) {
  const std::lock_guard lock(mutex_);
  auto it = sources_.find(std::string(source));
  if (it == sources_.end()) {
    if (sources_.size() >= kMaxSources)
      std::erase_if(sources_, [](const auto& entry) { return entry.second.suppressed == 0; });
    it = sources_.emplace(std::string(source), Source{TokenBucket(rate_, burst_, now)}).first;
  }
  Source& s = it->second;
  // The source's own budget first: a flooding client does not spend the others' shared one.
  if (!s.budget.take(now) || !global_.take(now)) {
    ++s.suppressed;
    suppressed_total_.fetch_add(1, std::memory_order_relaxed);
    return {false, s.suppressed};
  }
  const Verdict verdict{true, s.suppressed};
  s.suppressed = 0;
  return verdict;
}

}  // namespace herd::net
