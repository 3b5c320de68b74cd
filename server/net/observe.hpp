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

#include "net/limits.hpp"
#include "protocol/messages.hpp"

namespace herd::net {

// Durations in seconds (a world step, a command's answer), in Prometheus' cumulative histogram form.
struct TickHistogram {
  static constexpr std::array<double, 11> kBounds{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                  0.01,   0.025,   0.05,   0.1,   0.25};
  std::array<std::uint64_t, kBounds.size() + 1> counts{};  // last: above every bound
  double sum = 0;
  std::uint64_t count = 0;
  void observe(double seconds);
};

inline constexpr std::size_t kErrorCodeCount = static_cast<std::size_t>(protocol::ErrorCode::upstream_unavailable) + 1;

// Why the server refused or closed something a client did (PROTOCOL.md "Limits").
enum class Refusal : std::uint8_t {
  message_too_big,      // frame over max_message_bytes: close 1009
  invalid_utf8,         // text frame that is not UTF-8: close 1007
  too_deep,             // JSON nested deeper than max_json_depth: error too_deep
  rate_limited,         // over the session's message rate: error rate_limited
  flooding,             // still sending far over the rate: close 1008
  bad_token,            // commander hello without the command token: error unauthorized
  origin,               // upgrade from an Origin not on the allow-list: HTTP 403
  sessions,             // over max_sessions: close 1013
  sessions_per_address, // over max_sessions_per_address: close 1013
  spawn_too_large,      // spawn over max_spawn: error limit_exceeded
  control_queue_full,   // unread acks/errors/pongs over the limit: close 1008
  slow_consumer,        // behind on snapshots for slow_client_timeout: connection closed
  idle_timeout,         // nothing received for idle_timeout: connection closed
  close_timeout,        // a close that could not be delivered in time: connection dropped
  connections,          // over max_connections: HTTP 503 and closed as accepted
  bad_handshake,        // a WebSocket upgrade with a malformed Sec-WebSocket-Key: HTTP 400
};
inline constexpr std::size_t kRefusalCount = static_cast<std::size_t>(Refusal::bad_handshake) + 1;
std::string_view to_string(Refusal r);

// The process's resident memory in bytes (Linux /proc/self/statm); 0 when unknown.
std::uint64_t resident_memory_bytes();

struct MetricsView {
  std::uint64_t tick = 0, overruns = 0, ticks_dropped = 0, late_wakes = 0, agents = 0;
  // The tick budget's deferred work: the world's path queue, and `step` ticks still to run.
  std::uint64_t path_queue = 0, path_expansions = 0, paths_served = 0, paths_deferred = 0, step_ticks_pending = 0;
  std::uint64_t assignments_pending = 0, assignment_work_pending = 0;  // optimal formations over ticks
  std::uint64_t viewers = 0, commanders = 0, ungreeted = 0;
  std::uint64_t snapshots_sent = 0, snapshots_dropped = 0, bytes_out = 0;
  std::uint64_t snapshots_replaced = 0, snapshots_skipped = 0, snapshots_held = 0, snapshots_superseded = 0;  // dropped, by reason
  std::uint64_t commands_accepted = 0, commands_rejected = 0;
  std::array<std::uint64_t, kErrorCodeCount> errors_by_code{};
  std::array<std::uint64_t, kRefusalCount> refusals{};
  std::uint64_t resident_bytes = 0;
  std::uint64_t http_connections = 0, ws_connections = 0;  // open sockets of each kind
  std::uint64_t max_connections = 0;   // the cap in force (max_connections, or lower for the descriptor limit)
  std::uint64_t accept_failures = 0;   // accepts that failed (out of descriptors, ...), each retried after a pause
  std::uint64_t log_lines_suppressed = 0;  // client-caused log lines over their budget
  // A relay's link to its upstream server (written only when relay is true).
  bool relay = false;
  std::uint64_t relay_connected = 0, relay_connects = 0, relay_snapshots = 0, relay_bytes = 0, relay_command_links = 0;
  TickHistogram tick_duration;
  TickHistogram command_reply;  // read to answer queued, commands and controls
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
// json: one JSON object a line, {"time":"...","level":"info","event":"session_open","session":"4",...},
//   for log shippers; bytes that are not UTF-8 become U+FFFD.
enum class LogFormat : std::uint8_t { text, json };
std::string format_log(LogLevel level, std::string_view event, std::initializer_list<LogField> fields,
                       LogFormat format = LogFormat::text);
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
  explicit LogLimiter(double rate = 1, double burst = 10, double global_rate = 50, double global_burst = 200);
  Verdict admit(std::string_view source, double now);
  std::uint64_t suppressed_total() const { return suppressed_total_.load(std::memory_order_relaxed); }

 private:
  struct Source {
    TokenBucket budget;
    std::uint64_t suppressed = 0;
  };
  static constexpr std::size_t kMaxSources = 4096;  // beyond: sources with nothing suppressed are forgotten
  const double rate_, burst_;
  std::mutex mutex_;
  std::unordered_map<std::string, Source> sources_;
  TokenBucket global_;
  std::atomic<std::uint64_t> suppressed_total_{0};
};

}  // namespace herd::net
