// A thread that only sleeps and wakes, run beside a load: how late its wakes come says how much
// the machine itself held runnable threads back (other processes, a hypervisor taking the CPU),
// apart from anything the server did. A load run that misses its goals while the probe also woke
// tens of milliseconds late fell in a stalled minute of the machine, not of the server.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace herd::cli {

class WakeProbe {
 public:
  using Clock = std::chrono::steady_clock;
  struct Stats {
    std::uint64_t wakes = 0;
    std::uint64_t late = 0;  // wakes later than the threshold
    double max_late_ms = 0;
  };

  // Wakes every `period` (absolute deadlines); a wake more than `threshold` after its deadline
  // counts as late. After a late wake the next deadline is one period from then (no burst).
  WakeProbe(Clock::duration period, Clock::duration threshold) : period_(period), threshold_(threshold) {}
  ~WakeProbe() { stop(); }
  WakeProbe(const WakeProbe&) = delete;
  WakeProbe& operator=(const WakeProbe&) = delete;

  void start();
  void stop();  // returns at once: the sleeping thread is woken
  // One wake, `late` after its deadline (the thread's own bookkeeping; public for tests).
  void record(Clock::duration late);
  Stats stats() const;

 private:
  void loop();

  const Clock::duration period_, threshold_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  Stats stats_;
  std::thread thread_;
};

}  // namespace herd::cli
