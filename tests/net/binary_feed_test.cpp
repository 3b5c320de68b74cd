// The server's binary feed without a network: many viewers, moving viewports, frames dropped at
// random (latest-wins) and acks late or missing. Whatever arrives decodes against a state the
// client holds and equals the server's state in the viewer's view.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "exec/thread_pool.hpp"
#include "net/binary_feed.hpp"
#include "rng.hpp"

namespace herd::net {
namespace {

using protocol::QuantAgent;
using protocol::QuantState;

QuantState random_state(sim::Rng& rng, std::uint64_t tick, std::vector<QuantAgent>& agents,
                        std::uint32_t& next_id) {
  for (QuantAgent& a : agents) {
    a.x = static_cast<std::uint32_t>(std::clamp<double>(a.x + rng.uniform(-40, 40), 0, 65535));
    a.y = static_cast<std::uint32_t>(std::clamp<double>(a.y + rng.uniform(-40, 40), 0, 65535));
    if (rng.uniform(0, 1) < 0.1) a.heading = static_cast<std::uint8_t>(rng.uniform(0, 255.9));
  }
  if (rng.uniform(0, 1) < 0.5 && !agents.empty())
    agents.erase(agents.begin() +
                 static_cast<long>(rng.uniform(0, 1) * static_cast<double>(agents.size() - 1)));
  for (int k = 0; k < 3; ++k) {
    QuantAgent a;
    a.id = next_id++;
    a.x = static_cast<std::uint32_t>(rng.uniform(0, 65535));
    a.y = static_cast<std::uint32_t>(rng.uniform(0, 65535));
    a.radius = 96;
    agents.push_back(a);
  }
  QuantState s;
  s.tick = tick;
  s.x_bits = s.y_bits = 16;  // a 1024 x 1024 world
  s.agents = agents;
  return s;
}

// n agents at random places in a 1024 x 1024 world, ids from next_id on.
std::vector<QuantAgent> scattered(sim::Rng& rng, int n, std::uint32_t& next_id) {
  std::vector<QuantAgent> agents;
  for (int i = 0; i < n; ++i) {
    QuantAgent a;
    a.id = next_id++;
    a.x = static_cast<std::uint32_t>(rng.uniform(0, 65535));
    a.y = static_cast<std::uint32_t>(rng.uniform(0, 65535));
    agents.push_back(a);
  }
  return agents;
}

struct Client {
  BinaryViewer viewer;
  std::map<std::uint64_t, std::vector<QuantAgent>> held;
  std::optional<protocol::Viewport> view;
  std::uint8_t scale = protocol::kFinestScale;
};

// Frames are encoded a batch at a time on a thread pool, as the server does.
TEST(BinaryFeed, ViewersWithDropsLateAcksAndMovingViewportsStayExact) {
  sim::Rng rng(3);
  BinaryFeed feed;
  exec::ThreadPool pool(3);
  std::uint32_t next_id = 1;
  std::vector<QuantAgent> agents = scattered(rng, 300, next_id);
  // Clients 12 to 15 look where clients 0 to 3 look, whatever their baselines: those on the same
  // baseline through the same viewport share its frame.
  std::vector<Client> clients(16);
  for (std::size_t c = 0; c < clients.size(); ++c)
    if (c % 2 == 1)
      clients[c].view = protocol::Viewport{100.0 * static_cast<double>(c), 50,
                                           100.0 * static_cast<double>(c) + 300, 400};
  std::vector<std::pair<std::size_t, std::uint64_t>> pending_acks;
  std::map<std::pair<std::size_t, std::uint64_t>, std::uint8_t> held_scale;
  std::set<std::uint8_t> scales_seen;
  int deltas = 0, shared_checked = 0, shared_views = 0;
  for (std::uint64_t tick = 1; tick <= 200; ++tick) {
    feed.begin(random_state(rng, tick, agents, next_id),
               tick % 10 == 0 ? R"({"type":"snapshot"})" : "");
    // Acks arrive a little late, some never.
    for (auto& [c, t] : pending_acks) clients[c].viewer.on_ack(t);
    pending_acks.clear();
    std::map<std::string, int> seen;
    std::vector<BinaryViewer*> viewers;
    for (Client& cl : clients) {
      if (cl.view && rng.uniform(0, 1) < 0.2) cl.view->x0 += 20, cl.view->x1 += 20;
      if (rng.uniform(0, 1) < 0.05) cl.view = std::nullopt;
      cl.viewer.set_view(cl.view);
      if (rng.uniform(0, 1) < 0.03) cl.viewer.request_keyframe();
      // Now and then a viewer asks for another position quantum.
      if (rng.uniform(0, 1) < 0.03) cl.scale = static_cast<std::uint8_t>(rng.uniform(0, 6.99));
      cl.viewer.set_scale(cl.scale);
      viewers.push_back(&cl.viewer);
    }
    for (std::size_t c = 12; c < clients.size(); ++c) {
      clients[c].view = clients[c - 12].view;
      clients[c].viewer.set_view(clients[c].view);
      clients[c].scale = clients[c - 12].scale;
      clients[c].viewer.set_scale(clients[c].scale);
    }
    std::vector<SharedBytes> frames;
    feed.frames_for(viewers, frames, &pool);
    ASSERT_EQ(frames.size(), clients.size());
    for (std::size_t c = 0; c < clients.size(); ++c) {
      Client& cl = clients[c];
      const SharedBytes& frame = frames[c];
      ASSERT_TRUE(frame) << "held back, though it acknowledges";
      ++seen[*frame];
      if (rng.uniform(0, 1) < 0.25) continue;  // dropped: replaced before it was written
      const auto head = std::get<protocol::BinaryHeader>(protocol::read_binary_header(*frame));
      ASSERT_EQ(head.scale, cl.scale);
      std::span<const QuantAgent> base;
      if (head.delta) {
        ++deltas;
        ASSERT_EQ(held_scale[std::pair(c, head.baseline_tick)], cl.scale)
            << "a delta on another scale";
        auto it = cl.held.find(head.baseline_tick);
        ASSERT_NE(it, cl.held.end()) << "client " << c << " tick " << tick;
        base = it->second;
      }
      auto d = protocol::decode_binary(*frame, base);
      ASSERT_TRUE(std::holds_alternative<protocol::BinaryFrame>(d)) << std::get<std::string>(d);
      const auto& got = std::get<protocol::BinaryFrame>(d).agents;
      // The agents in view by their 1/64-unit positions, at the viewer's scale.
      std::vector<QuantAgent> want;
      const QuantState& fine = *feed.current();
      const QuantState coarse = protocol::coarsen(fine, cl.scale);
      for (std::size_t i = 0; i < fine.agents.size(); ++i)
        if (!cl.view || protocol::in_view(*cl.view, fine.agents[i].x, fine.agents[i].y))
          want.push_back(coarse.agents[i]);
      ASSERT_EQ(got, want) << "client " << c << " tick " << tick;
      cl.held[head.tick] = got;
      held_scale[{c, head.tick}] = head.scale;
      scales_seen.insert(head.scale);
      if (rng.uniform(0, 1) < 0.8) pending_acks.emplace_back(c, head.tick);
    }
    for (const auto& [bytes, n] : seen) {
      shared_checked += n > 1;
      const auto head = std::get<protocol::BinaryHeader>(protocol::read_binary_header(bytes));
      shared_views += n > 1 && head.filtered;
    }
  }
  EXPECT_GT(deltas, 1000);
  EXPECT_GE(scales_seen.size(), 4u);
  EXPECT_GT(shared_views, 0) << "viewers of one viewport on one baseline share a frame";
  EXPECT_GT(feed.stats().shared, 0u);  // whole-world viewers on the same baseline share a frame
  EXPECT_GT(shared_checked, 0);
}

// Viewers that look at the same place from the same frame are sent one frame, encoded once, and
// each decodes it exactly; one that moves its viewport gets its own, and shares again once the
// others look where it looks from the same baseline.
TEST(BinaryFeed, ViewersOfOneViewportOnOneBaselineShareOneFrame) {
  sim::Rng rng(5);
  BinaryFeed feed;
  std::uint32_t next_id = 1;
  std::vector<QuantAgent> agents = scattered(rng, 400, next_id);
  const protocol::Viewport here{200, 200, 500, 450}, there{600, 100, 900, 300};
  std::vector<Client> clients(4);
  for (Client& cl : clients) cl.view = here;
  for (std::uint64_t tick = 1; tick <= 12; ++tick) {
    feed.begin(random_state(rng, tick, agents, next_id), "");
    if (tick == 6) clients[3].view = there;
    if (tick == 9)
      for (Client& cl : clients) cl.view = there;
    std::vector<BinaryViewer*> viewers;
    for (Client& cl : clients) {
      cl.viewer.set_view(cl.view);
      viewers.push_back(&cl.viewer);
    }
    const auto encoded = feed.stats().keyframes + feed.stats().deltas;
    std::vector<SharedBytes> frames;
    feed.frames_for(viewers, frames, nullptr);
    // One frame for the three that keep looking here, one of its own for the one that moved
    // (on ticks 6 to 9: each frame's baseline had a viewport of its own), and one for all again
    // once all look there from the same baseline.
    const bool apart = tick >= 6 && tick <= 9;
    EXPECT_EQ(feed.stats().keyframes + feed.stats().deltas - encoded, apart ? 2u : 1u)
        << "tick " << tick;
    EXPECT_EQ(frames[0], frames[1]);
    EXPECT_EQ(frames[0], frames[2]);
    EXPECT_EQ(frames[0] == frames[3], !apart) << "tick " << tick;
    for (std::size_t c = 0; c < clients.size(); ++c) {
      Client& cl = clients[c];
      const auto head = std::get<protocol::BinaryHeader>(protocol::read_binary_header(*frames[c]));
      std::span<const QuantAgent> base;
      if (head.delta) base = cl.held.at(head.baseline_tick);
      auto d = protocol::decode_binary(*frames[c], base);
      ASSERT_TRUE(std::holds_alternative<protocol::BinaryFrame>(d)) << std::get<std::string>(d);
      std::vector<QuantAgent> want;
      for (const QuantAgent& a : feed.current()->agents)
        if (protocol::in_view(*cl.view, a.x, a.y)) want.push_back(a);
      ASSERT_EQ(std::get<protocol::BinaryFrame>(d).agents, want) << "client " << c;
      cl.held[head.tick] = std::get<protocol::BinaryFrame>(d).agents;
      cl.viewer.on_ack(head.tick);
    }
  }
}

// Latest wins at the feed too: while frames sent after a client's newest ack are unacknowledged,
// it is sent frames only until that ack is kMaxAckAge snapshots old; then nothing until an ack
// or a keyframe request comes, and the next frame is built on what it acknowledged. A client that
// reads slowly ends up sent one frame per ack; one that never acks is never held.
TEST(BinaryFeed, AClientBehindOnAcksIsHeldBackUntilItAcksOrAsksForAKeyframe) {
  sim::Rng rng(9);
  BinaryFeed feed;
  std::vector<QuantAgent> agents;
  std::uint32_t next_id = 1;
  BinaryViewer acking, silent;
  std::uint64_t tick = 0;
  // The next snapshot's frames: {acking's, silent's}; silent's is never held.
  auto next = [&] {
    feed.begin(random_state(rng, ++tick, agents, next_id), "");
    std::vector<BinaryViewer*> viewers = {&acking, &silent};
    std::vector<SharedBytes> frames;
    feed.frames_for(viewers, frames, nullptr);
    EXPECT_TRUE(frames[1]);
    if (frames[1]) {
      EXPECT_FALSE(
          std::get<protocol::BinaryHeader>(protocol::read_binary_header(*frames[1])).delta);
    }
    return frames[0];
  };
  auto header = [](const SharedBytes& f) {
    return std::get<protocol::BinaryHeader>(protocol::read_binary_header(*f));
  };
  ASSERT_TRUE(next());  // tick 1
  acking.on_ack(1);
  for (std::uint64_t k = 0; k < BinaryViewer::kMaxAckAge;
       ++k) {  // ticks 2 to 17: the ack is up to 16 old
    const SharedBytes f = next();
    ASSERT_TRUE(f) << "tick " << tick;
    EXPECT_EQ(header(f).baseline_tick, 1u);
  }
  EXPECT_TRUE(acking.waiting_for_acks(feed.sequence() + 1));
  EXPECT_FALSE(next());  // 18
  EXPECT_FALSE(next());  // 19
  EXPECT_EQ(feed.stats().held, 2u);
  acking.on_ack(5);                    // a late ack: 15 snapshots old at the next one
  const SharedBytes resumed = next();  // 20
  ASSERT_TRUE(resumed);
  EXPECT_TRUE(header(resumed).delta);
  EXPECT_EQ(header(resumed).baseline_tick, 5u);
  EXPECT_TRUE(next());   // 21: 16 old
  EXPECT_FALSE(next());  // 22
  // Caught up on what it was sent (21 acknowledged, though 16 old by now): one frame, then none
  // until that one is acknowledged.
  for (int k = 0; k < 15; ++k) EXPECT_FALSE(next());  // 23 to 37
  acking.on_ack(21);
  const SharedBytes one = next();  // 38
  ASSERT_TRUE(one);
  EXPECT_EQ(header(one).baseline_tick, 21u);
  EXPECT_FALSE(next());  // 39
  acking.on_ack(38);
  EXPECT_TRUE(next());  // 40
  EXPECT_TRUE(next());  // 41: 38 is 3 old
  EXPECT_FALSE(acking.waiting_for_acks(feed.sequence() + 1));
  // A keyframe request starts the feed again whatever it had acknowledged.
  for (int k = 0; k < 20; ++k) {  // 42 to 61: sent while 38 is at most 16 old
    const bool sent = next() != nullptr;
    EXPECT_EQ(sent, tick <= 38 + BinaryViewer::kMaxAckAge) << tick;
  }
  EXPECT_TRUE(acking.waiting_for_acks(feed.sequence() + 1));
  acking.request_keyframe();
  const SharedBytes key = next();
  ASSERT_TRUE(key);
  EXPECT_FALSE(header(key).delta);
  EXPECT_EQ(feed.stats().held, 2u + 1 + 15 + 1 + 7);  // 18-19, 22, 23-37, 39, 55-61
}

// What a session's I/O thread hands the tick thread (ViewerInbox) has the effect the same messages
// would have had on the viewer directly, in the order they came.
TEST(ViewerInbox, AcksKeyframeRequestsAndViewportsReachTheViewerAsTheyWouldHaveDirectly) {
  sim::Rng rng(5);
  std::vector<QuantAgent> agents;
  std::uint32_t next_id = 1;
  BinaryFeed feed;
  BinaryViewer viewer;
  ViewerInbox inbox;
  auto next_frame = [&](std::uint64_t tick) {
    feed.begin(random_state(rng, tick, agents, next_id), "");
    inbox.drain_into(viewer);
    return std::get<protocol::BinaryHeader>(protocol::read_binary_header(*feed.frame_for(viewer)));
  };
  EXPECT_FALSE(next_frame(1).delta);
  next_frame(2);
  inbox.ack(1);
  inbox.ack(2);
  auto h = next_frame(3);
  EXPECT_TRUE(h.delta);
  EXPECT_EQ(h.baseline_tick, 2u) << "the newest acknowledged frame";
  // A keyframe request forgets the acks before it, and acks after it name frames it forgot.
  inbox.ack(3);
  inbox.request_keyframe();
  inbox.ack(3);
  EXPECT_FALSE(next_frame(4).delta);
  inbox.ack(4);
  EXPECT_EQ(next_frame(5).baseline_tick, 4u);
  // Only the last viewport counts.
  inbox.set_view(protocol::Viewport{0, 0, 10, 10});
  inbox.set_view(protocol::Viewport{0, 0, 500, 500});
  EXPECT_TRUE(next_frame(6).filtered);
  EXPECT_EQ(viewer.view(), (protocol::Viewport{0, 0, 500, 500}));
  inbox.set_view(std::nullopt);
  EXPECT_FALSE(next_frame(7).filtered);
  // Bounded: a flood of acks keeps the newest, so the valid one sent last still counts.
  for (int i = 0; i < 10000; ++i) inbox.ack(1000000 + static_cast<std::uint64_t>(i));
  inbox.ack(7);
  EXPECT_EQ(next_frame(8).baseline_tick, 7u);
  // Cleared (the world was replaced): nothing is applied.
  inbox.ack(8);
  inbox.request_keyframe();
  inbox.clear();
  EXPECT_EQ(next_frame(9).baseline_tick, 7u);
}

TEST(AckBudget, AcksAreFreeUpToTheFramesSentPlusAFew) {
  AckBudget budget;
  for (std::uint64_t i = 0; i < AckBudget::kFreeAcks; ++i) EXPECT_TRUE(budget.take());
  EXPECT_FALSE(budget.take());
  budget.on_frame();
  budget.on_frame();
  EXPECT_TRUE(budget.take());
  EXPECT_TRUE(budget.take());
  EXPECT_FALSE(budget.take());
}

}  // namespace
}  // namespace herd::net
