// The server's binary feed without a network: many viewers, moving viewports, frames dropped at
// random (latest-wins) and acks late or missing. Whatever arrives decodes against a state the
// client holds and equals the server's state in the viewer's view.
#include <gtest/gtest.h>

#include <map>

#include "exec/thread_pool.hpp"
#include "net/binary_feed.hpp"
#include "sim/rng.hpp"

namespace herd::net {
namespace {

using protocol::QuantAgent;
using protocol::QuantState;

QuantState random_state(sim::Rng& rng, std::uint64_t tick, std::vector<QuantAgent>& agents, std::uint32_t& next_id) {
  for (QuantAgent& a : agents) {
    a.x = static_cast<std::uint32_t>(std::clamp<double>(a.x + rng.uniform(-40, 40), 0, 65535));
    a.y = static_cast<std::uint32_t>(std::clamp<double>(a.y + rng.uniform(-40, 40), 0, 65535));
    if (rng.uniform(0, 1) < 0.1) a.heading = static_cast<std::uint8_t>(rng.uniform(0, 255.9));
  }
  if (rng.uniform(0, 1) < 0.5 && !agents.empty()) agents.erase(agents.begin() + static_cast<long>(rng.uniform(0, 1) * static_cast<double>(agents.size() - 1)));
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

struct Client {
  BinaryViewer viewer;
  std::map<std::uint64_t, std::vector<QuantAgent>> held;
  std::optional<protocol::Viewport> view;
};

// Frames are encoded a batch at a time on a thread pool, as the server does.
TEST(BinaryFeed, ViewersWithDropsLateAcksAndMovingViewportsStayExact) {
  sim::Rng rng(3);
  BinaryFeed feed;
  exec::ThreadPool pool(3);
  std::vector<QuantAgent> agents;
  std::uint32_t next_id = 1;
  for (int i = 0; i < 300; ++i) {
    QuantAgent a;
    a.id = next_id++;
    a.x = static_cast<std::uint32_t>(rng.uniform(0, 65535));
    a.y = static_cast<std::uint32_t>(rng.uniform(0, 65535));
    agents.push_back(a);
  }
  std::vector<Client> clients(12);
  for (std::size_t c = 0; c < clients.size(); ++c)
    if (c % 2 == 1) clients[c].view = protocol::Viewport{100.0 * static_cast<double>(c), 50, 100.0 * static_cast<double>(c) + 300, 400};
  std::vector<std::pair<std::size_t, std::uint64_t>> pending_acks;
  int deltas = 0, shared_checked = 0;
  for (std::uint64_t tick = 1; tick <= 200; ++tick) {
    feed.begin(random_state(rng, tick, agents, next_id), tick % 10 == 0 ? R"({"type":"snapshot"})" : "");
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
      viewers.push_back(&cl.viewer);
    }
    std::vector<SharedBytes> frames;
    feed.frames_for(viewers, frames, &pool);
    ASSERT_EQ(frames.size(), clients.size());
    for (std::size_t c = 0; c < clients.size(); ++c) {
      Client& cl = clients[c];
      const SharedBytes& frame = frames[c];
      ++seen[*frame];
      if (rng.uniform(0, 1) < 0.25) continue;  // dropped: replaced before it was written
      const auto head = std::get<protocol::BinaryHeader>(protocol::read_binary_header(*frame));
      std::span<const QuantAgent> base;
      if (head.delta) {
        ++deltas;
        auto it = cl.held.find(head.baseline_tick);
        ASSERT_NE(it, cl.held.end()) << "client " << c << " tick " << tick;
        base = it->second;
      }
      auto d = protocol::decode_binary(*frame, base);
      ASSERT_TRUE(std::holds_alternative<protocol::BinaryFrame>(d)) << std::get<std::string>(d);
      const auto& got = std::get<protocol::BinaryFrame>(d).agents;
      std::vector<QuantAgent> want;
      for (const QuantAgent& a : feed.current()->agents)
        if (!cl.view || protocol::in_view(*cl.view, a.x, a.y)) want.push_back(a);
      ASSERT_EQ(got, want) << "client " << c << " tick " << tick;
      cl.held[head.tick] = got;
      if (rng.uniform(0, 1) < 0.8) pending_acks.emplace_back(c, head.tick);
    }
    for (const auto& [bytes, n] : seen) shared_checked += n > 1;
  }
  EXPECT_GT(deltas, 1000);
  EXPECT_GT(feed.stats().shared, 0u);  // whole-world viewers on the same baseline share a frame
  EXPECT_GT(shared_checked, 0);
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
