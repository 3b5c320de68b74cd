// FrameSteps on its own: the order in which a snapshot's viewers are handed out a step at a time,
// and which of them go first in the next snapshot.
#include "net/frame_steps.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace herd::net {
namespace {

std::vector<std::uint64_t> all_steps(FrameSteps& steps, std::size_t max) {
  std::vector<std::uint64_t> out;
  for (auto step = steps.take(max); !step.empty(); step = steps.take(max)) {
    EXPECT_LE(step.size(), max);
    out.insert(out.end(), step.begin(), step.end());
  }
  return out;
}

TEST(FrameSteps, HandsOutTheViewersInTheirOrderAStepAtATime) {
  FrameSteps steps;
  steps.start({9, 3, 7, 1, 5});
  EXPECT_EQ(steps.left(), 5u);
  const auto first = steps.take(2);
  EXPECT_EQ(std::vector<std::uint64_t>(first.begin(), first.end()),
            (std::vector<std::uint64_t>{9, 3}));
  EXPECT_EQ(steps.left(), 3u);
  EXPECT_EQ(all_steps(steps, 2), (std::vector<std::uint64_t>{7, 1, 5}));
  EXPECT_EQ(steps.left(), 0u);
  EXPECT_TRUE(steps.take(2).empty());
  EXPECT_EQ(steps.end(true), 0u);  // every viewer reached: none is behind
  steps.start({9, 3, 7, 1, 5});
  EXPECT_EQ(all_steps(steps, 4), (std::vector<std::uint64_t>{9, 3, 7, 1, 5}));
}

TEST(FrameSteps, TheViewersLeftBehindGoFirstInTheNextSnapshotTheOthersKeepTheirOrder) {
  FrameSteps steps;
  steps.start({10, 20, 30, 40, 50, 60});
  steps.take(2);                              // 10 and 20 sent
  EXPECT_EQ(steps.end(true), 4u);             // 30, 40, 50, 60 not reached
  steps.start({10, 20, 30, 40, 50, 60, 70});  // 70 joined since
  EXPECT_EQ(all_steps(steps, 3), (std::vector<std::uint64_t>{30, 40, 50, 60, 10, 20, 70}));
  EXPECT_EQ(steps.end(true), 0u);
  // Once reached, the order is the given one again.
  steps.start({10, 20, 30, 40, 50, 60, 70});
  EXPECT_EQ(all_steps(steps, 3), (std::vector<std::uint64_t>{10, 20, 30, 40, 50, 60, 70}));
}

TEST(FrameSteps, AViewerLeftBehindThatLeftSinceIsNotHandedOut) {
  FrameSteps steps;
  steps.start({1, 2, 3, 4});
  steps.take(1);
  EXPECT_EQ(steps.end(true), 3u);  // 2, 3, 4 behind
  steps.start({1, 4, 3});          // 2 left
  EXPECT_EQ(all_steps(steps, 8), (std::vector<std::uint64_t>{4, 3, 1}));
}

TEST(FrameSteps, ViewersLeftOfAReplacedWorldAreForgotten) {
  FrameSteps steps;
  steps.start({1, 2, 3, 4});
  steps.take(1);
  EXPECT_EQ(steps.end(false), 3u);  // counted, but not put first
  EXPECT_EQ(steps.left(), 0u);
  steps.start({1, 2, 3, 4});
  EXPECT_EQ(all_steps(steps, 8), (std::vector<std::uint64_t>{1, 2, 3, 4}));
}

TEST(FrameSteps, OnlyTheLastSnapshotsViewersLeftBehindGoFirst) {
  FrameSteps steps;
  steps.start({1, 2, 3, 4});
  steps.take(2);
  EXPECT_EQ(steps.end(true), 2u);  // 3, 4 behind
  steps.start({1, 2, 3, 4});
  steps.take(3);                   // 3, 4, 1
  EXPECT_EQ(steps.end(true), 1u);  // 2 behind; 3 and 4 were reached
  steps.start({1, 2, 3, 4});
  EXPECT_EQ(all_steps(steps, 8), (std::vector<std::uint64_t>{2, 1, 3, 4}));
}

}  // namespace
}  // namespace herd::net
