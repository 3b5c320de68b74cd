// The load tool's wake probe: its counting, and that stopping it never waits out a period.
#include "cli/wake_probe.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace herd::cli {
namespace {

using std::chrono::milliseconds;

TEST(WakeProbe, CountsWakesLaterThanTheThresholdAndKeepsTheWorst) {
  WakeProbe probe(milliseconds(5), milliseconds(20));
  probe.record(milliseconds(0));
  probe.record(milliseconds(20));  // at the threshold: not late
  probe.record(milliseconds(21));
  probe.record(milliseconds(70));
  probe.record(milliseconds(3));
  const auto s = probe.stats();
  EXPECT_EQ(s.wakes, 5u);
  EXPECT_EQ(s.late, 2u);
  EXPECT_DOUBLE_EQ(s.max_late_ms, 70.0);
}

TEST(WakeProbe, TheFixedWorkTakesTimeOnceStarted) {
  WakeProbe probe(std::chrono::hours(1), milliseconds(20));
  EXPECT_EQ(probe.work().count(), 0);  // nothing to walk before start() builds the cycle
  probe.start();
  probe.stop();
  EXPECT_GT(probe.work().count(), 0);
  EXPECT_EQ(probe.stats().work_us_p50, 0.0);  // no wake ran it
}

TEST(WakeProbe, RunsTheFixedWorkAtTheFirstWakeAndEveryNthAfter) {
  WakeProbe probe(milliseconds(1), milliseconds(1000), 4);
  probe.start();
  // Bounded: 9 wakes of 1 ms come well within 10 s on any machine.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (probe.stats().wakes < 9 && std::chrono::steady_clock::now() < give_up)
    std::this_thread::yield();
  probe.stop();
  const auto s = probe.stats();
  ASSERT_GE(s.wakes, 9u);
  // Wakes 1, 5, 9, ...: (wakes + 3) / 4 of them.
  EXPECT_EQ(s.work_runs, (s.wakes + 3) / 4);
  EXPECT_GT(s.work_us_p50, 0.0);
}

TEST(WakeProbe, StopWakesTheThreadInsteadOfWaitingOutItsPeriod) {
  // A period of an hour: stop() returning at all shows the sleep was interrupted.
  WakeProbe probe(std::chrono::hours(1), milliseconds(20));
  probe.start();
  probe.stop();
  EXPECT_EQ(probe.stats().wakes, 0u);
  probe.stop();  // twice is harmless
}

}  // namespace
}  // namespace herd::cli
