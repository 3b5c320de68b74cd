#include "net/tick_clock.hpp"

#include <gtest/gtest.h>

namespace herd::net {
namespace {

using std::chrono::milliseconds;

TEST(TickSchedule, StepsOnceEachPeriod) {
  TickSchedule s(100, 4);  // 10 ms period
  EXPECT_EQ(s.due(milliseconds(5)), 0);
  EXPECT_EQ(s.next_deadline(), milliseconds(10));
  EXPECT_EQ(s.due(milliseconds(10)), 1);
  EXPECT_EQ(s.due(milliseconds(19)), 0);
  EXPECT_EQ(s.late_wakes(), 0u);
  EXPECT_EQ(s.due(milliseconds(31)), 2);  // a late wake: two ticks, one snapshot after them
  EXPECT_EQ(s.late_wakes(), 1u);
  EXPECT_EQ(s.next_deadline(), milliseconds(40));
  EXPECT_EQ(s.ticks_run(), 3u);
  EXPECT_EQ(s.overruns(), 0u);
}

TEST(TickSchedule, CatchUpIsCappedAndTheRestDroppedAndCounted) {
  TickSchedule s(100, 4);
  EXPECT_EQ(s.due(milliseconds(105)), 4);  // 10 due, 4 run, 6 dropped
  EXPECT_EQ(s.overruns(), 1u);
  EXPECT_EQ(s.ticks_dropped(), 6u);
  EXPECT_EQ(s.next_deadline(), milliseconds(110));  // back on the grid, no spiral
  EXPECT_EQ(s.due(milliseconds(110)), 1);
  EXPECT_EQ(s.overruns(), 1u);
}

TEST(SnapshotCadence, EveryThirdTickAt60And20) {
  SnapshotCadence c(60, 20);
  int sent = 0;
  for (std::uint64_t t = 1; t <= 60; ++t) {
    const bool due = c.due(t);
    EXPECT_EQ(due, t % 3 == 0) << t;
    sent += due;
  }
  EXPECT_EQ(sent, 20);
}

TEST(SnapshotCadence, RatesThatDoNotDivideAverageExactly) {
  SnapshotCadence c(60, 25);
  int sent = 0;
  for (std::uint64_t t = 1; t <= 600; ++t) sent += c.due(t);
  EXPECT_EQ(sent, 250);
  SnapshotCadence every(30, 30);
  for (std::uint64_t t = 1; t <= 10; ++t) EXPECT_TRUE(every.due(t));
}

}  // namespace
}  // namespace herd::net
