// A session's outbound lanes and an I/O thread's outbox (the slow-consumer policy), on
// their own: what is written next, what waits, what is dropped and counted.
#include "net/outbound.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

namespace herd::net {
namespace {

using Clock = OutboundLanes::Clock;

SharedText text(std::string s) { return std::make_shared<const std::string>(std::move(s)); }

std::string pop_text(OutboundLanes& lanes) {
  auto m = lanes.pop();
  return m ? *m->bytes : std::string("<none>");
}

TEST(OutboundLanes, ControlMessagesGoFirstInOrderThenSnapshots) {
  OutboundLanes lanes(8);
  const auto t = Clock::now();
  EXPECT_FALSE(lanes.push_snapshot(text("s1"), true, t));
  EXPECT_TRUE(lanes.push_control(text("welcome")));
  EXPECT_TRUE(lanes.push_control(text("ack")));
  auto first = lanes.pop();
  ASSERT_TRUE(first);
  EXPECT_EQ(*first->bytes, "welcome");
  EXPECT_FALSE(first->snapshot);
  EXPECT_EQ(pop_text(lanes), "ack");
  auto snap = lanes.pop();
  ASSERT_TRUE(snap);
  EXPECT_EQ(*snap->bytes, "s1");
  EXPECT_TRUE(snap->snapshot);
  EXPECT_TRUE(snap->binary);
  EXPECT_FALSE(lanes.pop());
}

TEST(OutboundLanes, TwoSnapshotsWaitAndAThirdReplacesTheOldest) {
  // A late I/O thread hands over two snapshots at once while a third write is in flight: both
  // must be kept (no drop for a reader that is not slow). Only a third waiting one replaces.
  OutboundLanes lanes(8);
  const auto t0 = Clock::now();
  EXPECT_FALSE(lanes.push_snapshot(text("s1"), false, t0));
  EXPECT_FALSE(lanes.push_snapshot(text("s2"), false, t0));
  EXPECT_EQ(lanes.snapshots_waiting(), 2u);
  EXPECT_FALSE(lanes.behind_since());
  const auto t1 = t0 + std::chrono::milliseconds(50);
  EXPECT_TRUE(lanes.push_snapshot(text("s3"), false, t1));  // s1 replaced: counted as dropped
  EXPECT_EQ(lanes.snapshots_waiting(), 2u);
  ASSERT_TRUE(lanes.behind_since());
  EXPECT_EQ(*lanes.behind_since(), t1);
  EXPECT_TRUE(lanes.push_snapshot(text("s4"), false, t1 + std::chrono::milliseconds(50)));
  EXPECT_EQ(*lanes.behind_since(), t1);  // behind since the first drop, not the last
  EXPECT_EQ(pop_text(lanes), "s3");
  EXPECT_EQ(pop_text(lanes), "s4");
  EXPECT_TRUE(lanes.behind_since());  // still behind until a pop finds the lanes empty
  EXPECT_FALSE(lanes.pop());
  EXPECT_FALSE(lanes.behind_since());  // caught up
}

// A JSON snapshot shared by every session, with one session's inspect traces: the tail is
// written in place of the shared text's closing brace, and a newer snapshot replaces both.
TEST(OutboundLanes, ASnapshotsOwnTailTakesThePlaceOfItsClosingBrace) {
  OutboundLanes lanes(8);
  const auto t = Clock::now();
  const SharedText shared = text(R"({"type":"snapshot","tick":1})");
  lanes.push_snapshot(shared, false, t, text(R"(,"inspect":[]})"));
  lanes.push_snapshot(shared, false, t);
  auto own = lanes.pop();
  ASSERT_TRUE(own && own->snapshot && own->tail);
  EXPECT_TRUE(own->splice);
  EXPECT_EQ(own->bytes->substr(0, own->written_size()) + *own->tail,
            R"({"type":"snapshot","tick":1,"inspect":[]})");
  auto plain = lanes.pop();
  ASSERT_TRUE(plain && !plain->tail);
  EXPECT_FALSE(plain->splice);
  EXPECT_EQ(plain->written_size(), shared->size());
  lanes.push_snapshot(shared, false, t, text("}"));
  lanes.push_snapshot(shared, false, t, text("}"));
  EXPECT_TRUE(lanes.push_snapshot(shared, false, t)) << "the oldest, tail and all, is dropped";
  EXPECT_TRUE(lanes.pop()->tail);
  EXPECT_FALSE(lanes.pop()->tail);
}

TEST(OutboundLanes, AFullControlLaneRefusesTheMessage) {
  OutboundLanes lanes(2);
  EXPECT_TRUE(lanes.push_control(text("a")));
  EXPECT_TRUE(lanes.push_control(text("b")));
  EXPECT_FALSE(lanes.push_control(text("c")));  // the session is then closed
  EXPECT_EQ(lanes.control_size(), 2u);
  EXPECT_EQ(pop_text(lanes), "a");
  EXPECT_EQ(pop_text(lanes), "b");
  EXPECT_FALSE(lanes.pop());
}

TEST(OutboundLanes, ANewerWelcomeReplacesTheWaitingOneAndTheSessionIsBehind) {
  OutboundLanes lanes(8);
  const auto t0 = Clock::now();
  const SharedText tail1 = text(",\"paused\":true}"), tail2 = text(",\"paused\":false}");
  bool replaced = true;
  EXPECT_TRUE(lanes.push_welcome(text("{head"), tail1, t0, &replaced));
  EXPECT_FALSE(replaced);
  EXPECT_TRUE(lanes.push_control(text("ack")));
  EXPECT_FALSE(lanes.behind_since());
  const auto t1 = t0 + std::chrono::milliseconds(10);
  EXPECT_TRUE(lanes.push_welcome(text("{head"), tail2, t1, &replaced));
  EXPECT_TRUE(replaced);
  ASSERT_TRUE(lanes.behind_since());  // a welcome dropped: the slow-consumer clock runs
  EXPECT_EQ(*lanes.behind_since(), t1);
  EXPECT_EQ(lanes.control_size(), 2u);
  EXPECT_EQ(pop_text(lanes), "ack");  // the older welcome is gone, the newer one goes last
  auto w = lanes.pop();
  ASSERT_TRUE(w);
  EXPECT_EQ(*w->bytes + *w->tail, "{head,\"paused\":false}");
  EXPECT_FALSE(lanes.pop());
  EXPECT_FALSE(lanes.behind_since());
  EXPECT_EQ(lanes.control_bytes(), 0u);
}

TEST(OutboundLanes, TheControlLaneIsBoundedInBytesButTakesAnyOneMessage) {
  OutboundLanes lanes(256, /*control_bytes=*/100);
  EXPECT_TRUE(lanes.push_control(text(std::string(500, 'x'))));  // alone: taken whatever its size
  EXPECT_FALSE(lanes.push_control(text("a")));                   // over the bytes: refused
  EXPECT_EQ(pop_text(lanes).size(), 500u);
  EXPECT_TRUE(lanes.push_control(text(std::string(60, 'a'))));
  EXPECT_FALSE(lanes.push_control(text(std::string(60, 'b'))));
  EXPECT_TRUE(lanes.push_control(text(std::string(40, 'c'))));
  EXPECT_EQ(lanes.control_bytes(), 100u);
}

TEST(OutboundLanes, ClearingDropsWhatWaits) {
  OutboundLanes lanes(4);
  const auto t = Clock::now();
  lanes.push_control(text("a"));
  lanes.push_snapshot(text("s"), false, t);
  lanes.clear_snapshots();
  EXPECT_EQ(pop_text(lanes), "a");
  EXPECT_FALSE(lanes.pop());
  lanes.push_control(text("b"));
  lanes.clear_control();
  EXPECT_FALSE(lanes.pop());
}

constexpr std::size_t kAll = 1000;

TEST(Outbox, AddsToTheSameSnapshotAndAsksForOnePostUntilTaken) {
  Outbox<int> box;
  auto a = box.add(1, {10, 11});
  EXPECT_TRUE(a.post);
  EXPECT_EQ(a.skipped, 0u);
  auto b = box.add(1, {12});  // a later batch of the same snapshot (the steps of 128 viewers)
  EXPECT_FALSE(b.post);       // a take is already posted
  EXPECT_FALSE(box.add_message(99));
  auto ready = box.take(kAll);
  EXPECT_EQ(ready.messages, (std::vector<int>{99}));
  EXPECT_EQ(ready.frames, (std::vector<int>{10, 11, 12}));
  EXPECT_FALSE(ready.more);
  EXPECT_TRUE(box.take(kAll).frames.empty());
  EXPECT_TRUE(box.add(2, {20}).post);  // taken: the next add posts again
  box.take(kAll);
  EXPECT_TRUE(box.add_message(98));  // a message alone asks for a take too
}

TEST(Outbox, TakesAFewFramesAtATimeInOrderAndAsksForNoPostWhileSomeAreLeft) {
  Outbox<int> box;
  box.add(1, {10, 11, 12});
  box.add(2, {20, 21});
  auto first = box.take(2);
  EXPECT_EQ(first.frames, (std::vector<int>{10, 11}));
  EXPECT_TRUE(first.more);              // the taker posts itself again...
  EXPECT_FALSE(box.add(2, {22}).post);  // ...so an add does not
  EXPECT_FALSE(box.add_message(7));
  auto second = box.take(2);
  EXPECT_EQ(second.messages, (std::vector<int>{7}));
  EXPECT_EQ(second.frames, (std::vector<int>{12, 20}));  // across snapshots, oldest first
  EXPECT_TRUE(second.more);
  auto third = box.take(2);
  EXPECT_TRUE(third.messages.empty());
  EXPECT_EQ(third.frames, (std::vector<int>{21, 22}));
  EXPECT_FALSE(third.more);
  EXPECT_TRUE(box.add(3, {30}).post);  // the chain ended: the next add posts
}

TEST(Outbox, AMessageIsNeverOvertakenByFramesAddedAfterIt) {
  // An ack, then the snapshot that reflects it; a welcome, then the new world's first frame.
  Outbox<int> box;
  box.add(1, {10, 11, 12});
  EXPECT_EQ(box.take(1).frames, (std::vector<int>{10}));  // a chain is running
  box.add_message(100);
  box.add(2, {20});
  auto next = box.take(1);
  EXPECT_EQ(next.messages, (std::vector<int>{100}));  // before any frame of snapshot 2...
  EXPECT_EQ(next.frames, (std::vector<int>{11}));     // ...and before older frames too
  box.add_message(101);
  box.add_message(102);
  auto last = box.take(kAll);
  EXPECT_EQ(last.messages, (std::vector<int>{101, 102}));
  EXPECT_EQ(last.frames, (std::vector<int>{12, 20}));
}

TEST(Outbox, AThreadMoreThanTwoSnapshotsBehindSkipsTheOldestFramesButNoMessage) {
  // io_behind: the I/O thread has not run its take for three snapshots.
  Outbox<int> box;
  EXPECT_EQ(box.add(1, {10, 11, 12}).skipped, 0u);
  box.add_message(100);
  EXPECT_EQ(box.add(2, {20, 21, 22}).skipped, 0u);
  const auto third = box.add(3, {30, 31});
  EXPECT_EQ(third.skipped, 3u);  // snapshot 1's three frames
  EXPECT_FALSE(third.post);
  EXPECT_EQ(box.add(3, {32}).skipped, 0u);  // more of the newest: nothing more goes
  auto ready = box.take(kAll);
  EXPECT_EQ(ready.messages, (std::vector<int>{100}));
  EXPECT_EQ(ready.frames, (std::vector<int>{20, 21, 22, 30, 31, 32}));
}

TEST(Outbox, ASnapshotSkippedPartWayCountsOnlyWhatWasNotTaken) {
  Outbox<int> box;
  box.add(1, {10, 11, 12, 13});
  EXPECT_EQ(box.take(3).frames, (std::vector<int>{10, 11, 12}));
  box.add(2, {20});
  EXPECT_EQ(box.add(3, {30}).skipped, 1u);  // snapshot 1's last frame, the only one not taken
  EXPECT_EQ(box.take(kAll).frames, (std::vector<int>{20, 30}));
}

TEST(Outbox, DroppingFramesKeepsTheMessages) {
  // A replaced world: its frames not yet taken go, the welcomes stay.
  Outbox<int> box;
  box.add(1, {10, 11, 12});
  EXPECT_EQ(box.take(1).frames, (std::vector<int>{10}));
  box.add(2, {20});
  box.add_message(100);
  EXPECT_EQ(box.drop_frames(), 3u);  // 11, 12 and 20
  auto ready = box.take(kAll);
  EXPECT_EQ(ready.messages, (std::vector<int>{100}));
  EXPECT_TRUE(ready.frames.empty());
  EXPECT_FALSE(ready.more);
}

TEST(Outbox, ATakerThatRunsOnlyWhenPostedGetsEverythingAcrossThreads) {
  // The I/O thread's side as the server runs it: a take runs only when a post asked for one,
  // and posts itself again while frames are left. A lost post would leave frames or messages
  // behind for good, and the final checks would see them.
  Outbox<int> box;
  constexpr int kSnapshots = 20000;
  std::atomic<int> posts{0};
  std::atomic<bool> done{false};
  std::size_t skipped = 0, frames = 0, messages = 0;
  std::thread io([&] {
    while (!done.load() || posts.load() > 0) {
      if (posts.load() == 0) {
        std::this_thread::yield();
        continue;
      }
      --posts;
      auto taken = box.take(7);
      frames += taken.frames.size();
      messages += taken.messages.size();
      if (taken.more) ++posts;
    }
  });
  for (int n = 1; n <= kSnapshots; ++n) {
    auto a = box.add(static_cast<std::uint64_t>(n), {n, n});
    skipped += a.skipped;
    posts += a.post;
    auto b = box.add(static_cast<std::uint64_t>(n), {n});
    skipped += b.skipped;
    posts += b.post;
    if (n % 3 == 0) posts += box.add_message(n);
  }
  done = true;
  io.join();
  EXPECT_EQ(frames + skipped, 3u * kSnapshots);
  EXPECT_EQ(messages, static_cast<std::size_t>(kSnapshots / 3));
  auto left = box.take(kAll);
  EXPECT_TRUE(left.frames.empty());
  EXPECT_TRUE(left.messages.empty());
}

}  // namespace
}  // namespace herd::net
