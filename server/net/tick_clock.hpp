// herd::net::TickSchedule — when the fixed-tick loop should step, given how much time has passed.
//
// Pure arithmetic on elapsed time passed in by the caller (the tick loop is the only place that
// reads the clock), so it is tested without sleeping. Tick k is due at k * period after start.
// A wake that finds more than max_catchup ticks due runs max_catchup of them and drops the rest
// (counted as an overrun): after a stall the world slows down instead of spiralling.
#pragma once

#include <chrono>
#include <cstdint>

namespace herd::net {

class TickSchedule {
 public:
  using Duration = std::chrono::nanoseconds;

  // tick_rate in ticks per second, (0, 10000]; max_catchup >= 1.
  TickSchedule(double tick_rate, int max_catchup);

  // Ticks to step now, in [0, max_catchup]. `elapsed` is time since the schedule started.
  int due(Duration elapsed);

  // Elapsed time at which the next tick falls due.
  Duration next_deadline() const;

  std::uint64_t ticks_run() const { return run_; }
  std::uint64_t overruns() const { return overruns_; }  // wakes that had to drop ticks
  std::uint64_t ticks_dropped() const { return dropped_; }
  // Wakes that found more than one tick due: they ran their ticks back to back, so the snapshots
  // of all but the last never existed (a client sees a gap in the ticks).
  std::uint64_t late_wakes() const { return late_; }

 private:
  double period_ns_;
  int max_catchup_;
  std::uint64_t run_ = 0;      // ticks handed out by due()
  std::uint64_t dropped_ = 0;  // ticks skipped; tick k's deadline is (run_ + dropped_) * period
  std::uint64_t overruns_ = 0;
  std::uint64_t late_ = 0;
};

// Which ticks carry a snapshot: snapshot n goes out at the first tick t with
// t * snapshot_rate / tick_rate >= n, so 60 Hz ticks and 20 Hz snapshots give every third tick, and
// rates that do not divide still average exactly snapshot_rate.
class SnapshotCadence {
 public:
  SnapshotCadence(double tick_rate, double snapshot_rate) : ratio_(snapshot_rate / tick_rate) {}
  // True when the snapshot after `tick` (ticks completed, >= 1) is due.
  bool due(std::uint64_t tick) const { return index(tick) != index(tick - 1); }

 private:
  std::uint64_t index(std::uint64_t tick) const;
  double ratio_;
};

}  // namespace herd::net
