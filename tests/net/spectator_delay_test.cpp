// The spectators' broadcast delay: a snapshot is handed out no sooner than `delay` seconds of
// world time after it was made, the newest due one wins, a new world forgets the old one's, and
// past its byte cap the delay thins the snapshots it keeps rather than shortening.
#include "net/spectator_delay.hpp"

#include <gtest/gtest.h>

namespace herd::net {
namespace {

SpectatorDelay::Snapshot of(double time, SpectatorDelay::Text text = nullptr) {
  SpectatorDelay::Snapshot s;
  s.json = text ? std::move(text) : std::make_shared<const std::string>(100, 'x');
  auto state = std::make_shared<protocol::QuantState>();
  state->time = time;
  s.state = std::move(state);
  return s;
}

double time_of(const SpectatorDelay::Snapshot& s) { return s.state->time; }

TEST(SpectatorDelay, HandsOutEachSnapshotTheDelayLaterNewestFirst) {
  SpectatorDelay d(1.0);
  for (int i = 0; i <= 10; ++i) d.push(i * 0.1, of(i * 0.1));
  EXPECT_FALSE(d.due(0.95)) << "nothing is a second old yet";
  auto s = d.due(1.0);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(time_of(s), 0.0);
  // Two due at once: the newest, the older one dropped.
  d.push(1.1, of(1.1));
  d.push(1.2, of(1.2));
  s = d.due(1.2);
  ASSERT_TRUE(s);
  EXPECT_NEAR(time_of(s), 0.2, 1e-12);
  EXPECT_FALSE(d.due(1.2)) << "each is handed out once";
  ASSERT_NE(d.last_state(), nullptr);
  EXPECT_NEAR(d.last_state()->time, 1.2, 1e-12) << "the quantisation's previous state";
}

TEST(SpectatorDelay, ANewWorldForgetsTheOldOnes) {
  SpectatorDelay d(1.0);
  for (int i = 0; i < 10; ++i) d.push(5 + i * 0.1, of(5 + i * 0.1));
  d.push(0.0, of(0.0));  // time went back: a new world
  EXPECT_FALSE(d.due(0.5));
  auto s = d.due(1.0);
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(time_of(s), 0.0);
  d.clear();
  EXPECT_EQ(d.bytes(), 0u);
  EXPECT_EQ(d.last_state(), nullptr);
}

TEST(SpectatorDelay, PastItsCapItThinsNeverShortens) {
  const double delay = 10;
  SpectatorDelay d(delay);
  // 40 MiB snapshots at 20 a second: 8 GiB over the delay, kept within the cap.
  const std::size_t size = std::size_t{40} << 20;
  const auto text = std::make_shared<const std::string>(size, 'x');  // counted once a snapshot
  std::size_t most = 0;
  double first_due = -1;
  int handed = 0;
  for (int i = 0; i < 600; ++i) {
    const double t = i * 0.05;
    d.push(t, of(t, text));
    most = std::max(most, d.bytes());
    if (auto s = d.due(t)) {
      EXPECT_LE(time_of(s), t - delay + 1e-9) << "never sooner than the delay";
      if (first_due < 0) first_due = t;
      ++handed;
    }
  }
  EXPECT_LE(most, SpectatorDelay::kMaxBytes + size);
  EXPECT_GE(first_due, delay);
  EXPECT_GT(handed, 5) << "thinned, not stopped";
  EXPECT_LT(handed, 400) << "thinned";
}

}  // namespace
}  // namespace herd::net
