// herd::net observability without Beast: the Prometheus text for /metrics, and log lines.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "protocol/messages.hpp"

namespace herd::net {

// Seconds per world step, in Prometheus' cumulative histogram form.
struct TickHistogram {
  static constexpr std::array<double, 11> kBounds{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                  0.01,   0.025,   0.05,   0.1,   0.25};
  std::array<std::uint64_t, kBounds.size() + 1> counts{};  // last: above every bound
  double sum = 0;
  std::uint64_t count = 0;
  void observe(double seconds);
};

inline constexpr std::size_t kErrorCodeCount = static_cast<std::size_t>(protocol::ErrorCode::unknown_scenario) + 1;

struct MetricsView {
  std::uint64_t tick = 0, overruns = 0, ticks_dropped = 0, agents = 0;
  std::uint64_t viewers = 0, commanders = 0, ungreeted = 0;
  std::uint64_t snapshots_sent = 0, snapshots_dropped = 0, bytes_out = 0;
  std::uint64_t commands_accepted = 0, commands_rejected = 0;
  std::array<std::uint64_t, kErrorCodeCount> errors_by_code{};
  TickHistogram tick_duration;
};

// The Prometheus text exposition format (version 0.0.4).
std::string render_prometheus(const MetricsView& m);

enum class LogLevel : std::uint8_t { debug, info, warn, error };
using LogField = std::pair<std::string_view, std::string>;
using LogSink = std::function<void(std::string_view line)>;

// One line: "2026-11-22T19:30:01.123Z info session_open session=4 address=127.0.0.1:5555".
// Values with spaces, quotes or '=' are quoted.
std::string format_log(LogLevel level, std::string_view event, std::initializer_list<LogField> fields);

}  // namespace herd::net
