// A thread that sleeps and wakes, run beside a load, to say how the machine itself did during the
// run, apart from anything the server did:
// - how late its wakes come: whether the machine held runnable threads back (other processes, a
//   hypervisor taking the CPU);
// - how long a fixed piece of work takes at each wake (a walk of 4,096 steps through a 1 MiB
//   random cycle: caches and memory as much as arithmetic): whether the machine ran slower. On a
//   shared VM a slow minute shows here, as the same work taking longer, more than as late wakes.
//   The work runs at every `work_every`-th wake only: about 0.4 ms of a core each time, it must not
//   take from the run it measures (at every 5 ms wake it took 9% of a core).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace herd::cli {

class WakeProbe {
 public:
  using Clock = std::chrono::steady_clock;
  struct Stats {
    std::uint64_t wakes = 0;
    std::uint64_t late = 0;  // wakes later than the threshold
    double max_late_ms = 0;
    std::uint64_t work_runs = 0;              // the wakes that ran the fixed work
    double work_us_p50 = 0, work_us_p90 = 0;  // the fixed work's time, over the wakes that ran it
  };

  // Wakes every `period` (absolute deadlines); a wake more than `threshold` after its deadline
  // counts as late. After a late wake the next deadline is one period from then (no burst). The
  // fixed work is timed at the first wake and every `work_every`-th after it.
  WakeProbe(Clock::duration period, Clock::duration threshold, unsigned work_every = 1)
      : period_(period), threshold_(threshold), work_every_(work_every == 0 ? 1 : work_every) {}
  ~WakeProbe() { stop(); }
  WakeProbe(const WakeProbe&) = delete;
  WakeProbe& operator=(const WakeProbe&) = delete;

  void start();
  void stop();  // returns at once: the sleeping thread is woken
  // One wake, `late` after its deadline (the thread's own bookkeeping; public for tests).
  void record(Clock::duration late);
  // The fixed work once; returns how long it took (public for tests and the benchmark).
  Clock::duration work();
  Stats stats() const;

 private:
  void loop();

  const Clock::duration period_, threshold_;
  const unsigned work_every_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  Stats stats_;
  std::vector<double> work_us_;       // one per wake
  std::vector<std::uint32_t> cycle_;  // the walk: cycle_[i] is the step after i
  std::uint32_t at_ = 0;
  std::uint64_t wakes_ = 0;  // the loop's own count, to pick the wakes that run the work
  std::thread thread_;
};

}  // namespace herd::cli
