// herd::net::Observability — what the server tells about itself: the counters that /metrics and
// Server::stats() report, refusals and errors by kind, the tick and reply duration histograms,
// and the log, with the per-address budget for lines a client causes. Any thread: atomics, and a
// lock each around the histograms and the log sink. No Boost.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>

#include "net/observability_text.hpp"
#include "protocol/messages.hpp"

namespace herd::net {

class Observability {
 public:
  using Duration = std::chrono::steady_clock::duration;

  struct Counters {
    // One atomic per row of HERD_COUNTER_METRICS (observability_text.hpp): what /metrics reports of
    // them.
#define HERD_COUNTER_FIELD(field, type, name, labels, help) std::atomic<std::uint64_t> field{0};
    HERD_COUNTER_METRICS(HERD_COUNTER_FIELD)
#undef HERD_COUNTER_FIELD
    std::atomic<std::uint64_t> sessions{0},
        refusals{0};  // sessions joined, limits hit: for stats()
    std::uint64_t snapshots_dropped() const {
      return snapshots_replaced + snapshots_skipped + snapshots_held + snapshots_encode_behind +
             snapshots_superseded;
    }
  };

  // Lines go to `sink` (none when it is empty), one call at a time, in `format`.
  Observability(LogSink sink, LogFormat format) : sink_(std::move(sink)), format_(format) {}

  Counters& counters() { return counters_; }
  const Counters& counters() const { return counters_; }

  void count_error(protocol::ErrorCode code) { ++errors_by_code_[static_cast<std::size_t>(code)]; }
  // A limit a client hit: counted, and logged as a warning (never with a token's value) within
  // the client's log budget.
  void refused(Refusal why, std::string_view who);

  void log(LogLevel level, std::string_view event, std::initializer_list<LogField> fields) const;
  // A line a client caused (`who`: its address, "ip:port" or "ip"): written within that IP
  // address's log budget; the first line written after some were left out carries suppressed=N.
  void log_from(std::string_view who, LogLevel level, std::string_view event,
                std::initializer_list<LogField> fields);

  void observe_tick(Duration d);  // a world step (the hub's thread)
  void observe_stages(
      const sim::StepProfile& p);  // the same step's stages, from the world's profile
  void observe_reply(Duration d);  // a command's answer, from asking to reading it (the shards)

  // What /metrics shows of all this (the counters, errors, refusals, histograms, suppressed log
  // lines) and the process's resident memory; the rest of the view is the caller's.
  MetricsView metrics() const;

 private:
  // "ip:port" -> "ip" (an IPv6 address's own colons come before its port's).
  static std::string_view address_key(std::string_view who) {
    return who.substr(0, who.rfind(':'));
  }
  void write_log(const std::string& line) const;

  const LogSink sink_;
  const LogFormat format_;
  Counters counters_;
  std::array<std::atomic<std::uint64_t>, kRefusalCount> refusals_{};
  std::array<std::atomic<std::uint64_t>, kErrorCodeCount> errors_by_code_{};
  mutable std::mutex histogram_mutex_;
  TickHistogram tick_duration_;                               // written by the hub's thread
  TickHistogram command_reply_;                               // written by the shards
  std::array<StageHistogram, sim::kStageCount> step_stages_;  // written by the hub's thread
  mutable std::mutex log_mutex_;
  LogLimiter log_limiter_;  // client-caused log lines, per IP address
};

}  // namespace herd::net
