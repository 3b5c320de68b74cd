// herd::net observability without Beast: the Prometheus text for /metrics, and log lines.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "herd/sim/profile.hpp"
#include "net/limits.hpp"
#include "protocol/messages.hpp"

namespace herd::net {

// Durations in seconds in Prometheus' cumulative histogram form, over upper bounds `Bounds`
// (ascending; a last bucket above them all).
template <const auto& Bounds>
struct DurationHistogram {
  static constexpr const auto& kBounds = Bounds;
  std::array<std::uint64_t, Bounds.size() + 1> counts{};
  double sum = 0;
  std::uint64_t count = 0;
  void observe(double seconds) {
    std::size_t i = 0;
    while (i < kBounds.size() && seconds > kBounds[i]) ++i;
    ++counts[i];
    sum += seconds;
    ++count;
  }
};
// A world step, a command's answer.
inline constexpr std::array<double, 11> kTickBounds{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                    0.01,   0.025,   0.05,   0.1,   0.25};
using TickHistogram = DurationHistogram<kTickBounds>;
// A stage of a step (sim::Stage): finer at the bottom, as a stage of a small world takes
// microseconds.
inline constexpr std::array<double, 12> kStageBounds{1e-6, 5e-6,  1e-5,   5e-5,  1e-4, 2.5e-4,
                                                     5e-4, 0.001, 0.0025, 0.005, 0.01, 0.025};
using StageHistogram = DurationHistogram<kStageBounds>;

inline constexpr std::size_t kErrorCodeCount = protocol::kErrorCodeCount;

// Why the server refused or closed something a client did (PROTOCOL.md "Limits").
enum class Refusal : std::uint8_t {
  message_too_big,       // frame over max_message_bytes: close 1009
  invalid_utf8,          // text frame that is not UTF-8: close 1007
  too_deep,              // JSON nested deeper than max_json_depth: error too_deep
  rate_limited,          // over the session's message rate: error rate_limited
  flooding,              // still sending far over the rate: close 1008
  bad_token,             // commander hello without the command token: error unauthorized
  origin,                // upgrade from an Origin not on the allow-list: HTTP 403
  sessions,              // over max_sessions, or an anonymous hello over its share: close 1013
  sessions_per_address,  // over max_sessions_per_address: close 1013
  spawn_too_large,       // spawn over max_spawn: error limit_exceeded
  control_queue_full,    // unread acks/errors/pongs over the limit: close 1008
  slow_consumer,         // behind on snapshots for slow_client_timeout: connection closed
  idle_timeout,          // nothing received for idle_timeout: connection closed
  close_timeout,         // a close that could not be delivered in time: connection dropped
  connections,           // over max_connections: HTTP 503 and closed as accepted
  bad_handshake,         // a WebSocket upgrade with a malformed Sec-WebSocket-Key: HTTP 400
  host,                  // a request whose Host is not one of the server's names: HTTP 403
  token_throttled,       // a token tried from an address over its wrong-token budget: unauthorized
  connections_per_address,  // over max_connections_per_address: HTTP 503 and closed as accepted
  http_rate_limited,        // HTTP requests from one address over their rate: HTTP 429
  hello_timeout,            // no hello within hello_timeout: close 1008
};
inline constexpr std::size_t kRefusalCount = static_cast<std::size_t>(Refusal::hello_timeout) + 1;
std::string_view to_string(Refusal r);

// The process's resident memory in bytes (Linux /proc/self/statm); 0 when unknown.
std::uint64_t resident_memory_bytes();

// The server's counters and gauges, a row each: the field that holds it, its Prometheus type,
// series name, labels and help. The atomic counters (Observability::Counters), the view /metrics
// renders from and the text itself are all made from these rows, so a metric is added here (and
// counted where it happens). Rows of one series with different labels are consecutive; the series'
// help is its first row's. Values that are not one of these counters (per-code and per-reason
// arrays, connections, the relay's link, histograms, memory) are the fields of MetricsView below.
#define HERD_COUNTER_METRICS(X)                                                                    \
  X(tick, gauge, "herd_tick", "", "Ticks the world has completed.")                                \
  X(overruns, counter, "herd_tick_overruns_total", "",                                             \
    "Tick-loop wakes that were behind by more than the catch-up allowance.")                       \
  X(ticks_dropped, counter, "herd_ticks_dropped_total", "", "Ticks skipped to catch up.")          \
  X(late_wakes, counter, "herd_tick_late_wakes_total", "",                                         \
    "Tick-loop wakes that ran more than one tick back to back (one snapshot for them all).")       \
  X(agents, gauge, "herd_agents", "", "Agents in the world.")                                      \
  X(path_queue, gauge, "herd_path_queue", "",                                                      \
    "A* path requests waiting in the world's path queue (the one being searched included).")       \
  X(path_expansions, counter, "herd_path_expansions_total", "",                                    \
    "Path work done within the per-tick budget: A* tile expansions and flow-field building.")      \
  X(paths_served, counter, "herd_paths_served_total", "",                                          \
    "Path requests the path queue has answered (found or not).")                                   \
  X(paths_deferred, counter, "herd_paths_deferred_total", "",                                      \
    "Path requests left waiting at the end of a tick, summed over ticks.")                         \
  X(flow_fields_waiting, gauge, "herd_flow_fields_waiting", "",                                    \
    "Flow-field goals agents wait for (the field being built included).")                          \
  X(flow_fields_kept, gauge, "herd_flow_fields", "", "Flow fields kept in the world's cache.")     \
  X(flow_fields_built, counter, "herd_flow_fields_built_total", "",                                \
    "Flow fields built, within the path budget.")                                                  \
  X(assignments_pending, gauge, "herd_assignments_pending", "",                                    \
    "Optimal formation assignments being worked out over ticks.")                                  \
  X(assignment_work_pending, gauge, "herd_assignment_work_pending", "",                            \
    "Agent-slot cost evaluations the pending assignments may still need, at most (n^2 per agent "  \
    "left).")                                                                                      \
  X(step_ticks_pending, gauge, "herd_step_ticks_pending", "",                                      \
    "Ticks of step commands not yet run (step runs in slices between other work).")                \
  X(stalled_blocked_by_standing, gauge, "herd_stalled_agents", "reason=\"blocked_by_standing\"",   \
    "Agents stalled (moving below a tenth of their speed for over 2 s), by stall reason.")         \
  X(stalled_pinned, gauge, "herd_stalled_agents", "reason=\"pinned\"", "")                         \
  X(stalled_oscillating, gauge, "herd_stalled_agents", "reason=\"oscillating\"", "")               \
  X(stalled_queueing, gauge, "herd_stalled_agents", "reason=\"queueing\"", "")                     \
  X(stalled_unreachable, gauge, "herd_stalled_agents", "reason=\"unreachable\"", "")               \
  X(stalled_blocked, gauge, "herd_stalled_agents", "reason=\"blocked\"", "")                       \
  X(viewers, gauge, "herd_sessions", "role=\"viewer\"", "Open WebSocket sessions by role.")        \
  X(commanders, gauge, "herd_sessions", "role=\"commander\"", "")                                  \
  X(ungreeted, gauge, "herd_sessions", "role=\"none\"", "")                                        \
  X(snapshots_sent, counter, "herd_snapshots_sent_total", "",                                      \
    "Snapshot frames written, all sessions.")                                                      \
  X(snapshots_replaced, counter, "herd_snapshot_drops_total", "reason=\"replaced\"",               \
    "Snapshots not written to a session, by reason: replaced before being written (slow reader), " \
    "skipped by an "                                                                               \
    "I/O thread more than two snapshots behind, held back from a binary client behind on acks, "   \
    "not encoded before the next snapshot was taken (the frame work a whole snapshot behind), "    \
    "not written before the world was replaced.")                                                  \
  X(snapshots_skipped, counter, "herd_snapshot_drops_total", "reason=\"io_behind\"", "")           \
  X(snapshots_held, counter, "herd_snapshot_drops_total", "reason=\"held_for_acks\"", "")          \
  X(snapshots_encode_behind, counter, "herd_snapshot_drops_total", "reason=\"encode_behind\"", "") \
  X(snapshots_superseded, counter, "herd_snapshot_drops_total", "reason=\"superseded\"", "")       \
  X(welcomes_replaced, counter, "herd_welcomes_replaced_total", "",                                \
    "Welcomes not written to a session: a newer one replaced them while they waited (a reader "    \
    "that stopped reading keeps one waiting welcome).")                                            \
  X(bytes_out, counter, "herd_bytes_out_total", "", "WebSocket payload bytes written.")            \
  X(commands_accepted, counter, "herd_commands_total", "result=\"accepted\"",                      \
    "Commands by result.")                                                                         \
  X(commands_rejected, counter, "herd_commands_total", "result=\"rejected\"", "")

struct MetricsView {
#define HERD_METRICS_VIEW_FIELD(field, type, name, labels, help) std::uint64_t field = 0;
  HERD_COUNTER_METRICS(HERD_METRICS_VIEW_FIELD)
#undef HERD_METRICS_VIEW_FIELD
  std::uint64_t snapshots_dropped = 0;  // all reasons
  std::array<std::uint64_t, kErrorCodeCount> errors_by_code{};
  std::array<std::uint64_t, kRefusalCount> refusals{};
  std::uint64_t resident_bytes = 0;
  std::uint64_t http_connections = 0, ws_connections = 0;  // open sockets of each kind
  std::uint64_t max_connections =
      0;  // the cap in force (max_connections, or lower for the descriptor limit)
  std::uint64_t accept_failures =
      0;  // accepts that failed (out of descriptors, ...), each retried after a pause
  std::uint64_t log_lines_suppressed = 0;  // client-caused log lines over their budget
  // A relay's link to its upstream server (written only when relay is true).
  bool relay = false;
  std::uint64_t relay_connected = 0, relay_connects = 0, relay_snapshots = 0, relay_bytes = 0,
                relay_command_links = 0, relay_skipped = 0;
  // The world's measurement lines and areas with their last reports (a local world only).
  std::vector<protocol::MeasurementState> measurements;
  // Its sources and exits with their counts (a local world only).
  std::vector<protocol::SourceState> sources;
  std::vector<protocol::ExitState> exits;
  // The trajectory recorder (--trajectories; written only when trajectories is true).
  bool trajectories = false;
  std::uint64_t trajectory_frames_written = 0, trajectory_frames_dropped = 0,
                trajectory_batches = 0, trajectory_queued = 0, trajectory_failed = 0;
  TickHistogram tick_duration;
  TickHistogram command_reply;  // read to answer queued, commands and controls
  std::array<StageHistogram, sim::kStageCount>
      step_stages;  // each stage of the step, by sim::Stage
};

// The answer to /healthz: its HTTP status and JSON body.
struct Health {
  int status = 200;
  std::string body;
};

// The Prometheus text exposition format (version 0.0.4).
std::string render_prometheus(const MetricsView& m);

enum class LogLevel : std::uint8_t { debug, info, warn, error };
using LogField = std::pair<std::string_view, std::string>;
using LogSink = std::function<void(std::string_view line)>;

// text: one line, "2026-11-22T19:30:01.123Z info session_open session=4 address=127.0.0.1:5555".
//   A value that is empty or holds a space, '"', '=', '\\' or a control character is quoted, with
//   '"' and '\\' escaped and control characters written as \n, \r, \t or \xNN: whatever a client
//   sends, one event is one line.
// json: one JSON object a line,
// {"time":"...","level":"info","event":"session_open","session":"4",...},
//   for log shippers; bytes that are not UTF-8 become U+FFFD.
enum class LogFormat : std::uint8_t { text, json };
std::string format_log(LogLevel level, std::string_view event,
                       std::initializer_list<LogField> fields, LogFormat format = LogFormat::text);
std::string format_log(LogLevel level, std::string_view event, const std::vector<LogField>& fields,
                       LogFormat format = LogFormat::text);

// How many log lines each client may cause: `burst` at once, then `rate` a second; all clients
// together `global_burst`, then `global_rate` a second. A line over budget is not written but
// counted against its source, and the next line written for that source says how many were left
// out. Time is passed in (seconds on a monotonic clock). Thread-safe.
class LogLimiter {
 public:
  struct Verdict {
    bool write = true;
    std::uint64_t suppressed = 0;  // lines of this source not written since its last written one
  };
  explicit LogLimiter(double rate = 1, double burst = 10, double global_rate = 50,
                      double global_burst = 200);
  Verdict admit(std::string_view source, double now);
  std::uint64_t suppressed_total() const {
    return suppressed_total_.load(std::memory_order_relaxed);
  }

 private:
  struct Source {
    TokenBucket budget;
    std::uint64_t suppressed = 0;
  };
  static constexpr std::size_t kMaxSources =
      4096;  // beyond: sources with nothing suppressed are forgotten
  const double rate_, burst_;
  std::mutex mutex_;
  std::unordered_map<std::string, Source> sources_;
  TokenBucket global_;
  std::atomic<std::uint64_t> suppressed_total_{0};
};

}  // namespace herd::net
