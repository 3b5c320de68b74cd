// Binary snapshots over the real server: keyframes and deltas on acknowledged
// baselines, keyframe requests, viewports, auto format, and acks outside the command budget.
#include <map>
#include <span>

#include "net/server_fixture.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::net {
namespace {

using protocol::BinaryFrame;
using protocol::QuantAgent;

class BinaryTest : public ServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    def.max_agents = 1200;
    config.max_spawn = 1000;
  }

  // The next binary frame (JSON messages before it are skipped); fails the test after kWait.
  std::string next_binary(WsClient& c) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto data = c.receive(Millis(200));
      if (data && !data->empty() && static_cast<std::uint8_t>((*data)[0]) == protocol::kBinaryMagic)
        return *data;
    }
    ADD_FAILURE() << "no binary frame";
    return {};
  }

  // One tick by hand (the world paused): its tick, once the commander has the step's ack.
  std::uint64_t step(WsClient& commander) {
    const std::uint32_t s = ++step_seq_;
    commander.send(R"({"type":"command","seq":)" + std::to_string(s) + R"(,"cmd":"step"})");
    return wait_for<protocol::Ack>(commander, [&](const protocol::Ack& a) { return a.seq == s; })
        .tick;
  }
  // What the clients sent before has reached the server once the pongs to these pings are back
  // (sent to all, then awaited: one round trip for all of them).
  void sync(std::span<const std::unique_ptr<WsClient>> clients) {
    const std::uint32_t id = ++ping_id_;
    for (const auto& c : clients) c->send(R"({"type":"ping","id":)" + std::to_string(id) + "}");
    for (const auto& c : clients)
      wait_for<protocol::Pong>(*c, [&](const protocol::Pong& p) { return p.id == id; });
  }
  std::uint32_t step_seq_ = 1000, ping_id_ = 0;

  // 40 agents on a diagonal, each crossing the world: every snapshot has movement to delta-encode.
  void spawn_crossing_crowd(WsClient& commander) {
    std::vector<sim::Vec2> at;
    for (int i = 0; i < 40; ++i) at.push_back({20.0 + 18 * i, 50.0 + 11 * i});
    spawn(commander, 1, at, true);
  }

  std::vector<std::uint32_t> spawn(WsClient& c, std::uint32_t seq, std::vector<sim::Vec2> at,
                                   bool move) {
    std::vector<sim::SpawnAgent> agents;
    for (sim::Vec2 p : at) {
      sim::SpawnAgent s;
      s.position = p;
      if (move) s.target = sim::Vec2{800 - p.x, 600 - p.y};
      agents.push_back(s);
    }
    c.send(command(seq, sim::Spawn{0, 0, agents}));
    const auto ack =
        wait_for<protocol::Ack>(c, [&](const protocol::Ack& a) { return a.seq == seq; });
    return ack.agents.value_or(std::vector<std::uint32_t>{});
  }

  // A client's side of the feed: decoded states by tick, acks sent for each.
  struct Feed {
    std::map<std::uint64_t, std::vector<QuantAgent>> states;
    BinaryFrame receive(const std::string& bytes) {
      auto head = protocol::read_binary_header(bytes);
      EXPECT_TRUE(std::holds_alternative<protocol::BinaryHeader>(head));
      const auto& h = std::get<protocol::BinaryHeader>(head);
      std::span<const QuantAgent> base;
      if (h.delta) {
        auto it = states.find(h.baseline_tick);
        EXPECT_NE(it, states.end())
            << "a delta on a baseline never acknowledged: " << h.baseline_tick;
        if (it != states.end()) base = it->second;
      }
      auto d = protocol::decode_binary(bytes, base);
      if (auto* err = std::get_if<std::string>(&d)) {
        ADD_FAILURE() << *err;
        return {};
      }
      states[h.tick] = std::get<BinaryFrame>(d).agents;
      return std::get<BinaryFrame>(std::move(d));
    }
  };
};

TEST_F(BinaryTest, DeltasOnAcknowledgedSnapshotsMatchTheJsonSnapshots) {
  auto commander = greeted(protocol::Role::commander);
  spawn_crossing_crowd(*commander);
  auto bin = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  auto json = greeted(protocol::Role::viewer);
  Feed feed;
  int deltas = 0;
  std::map<std::uint64_t, std::vector<QuantAgent>> by_tick;
  for (int i = 0; i < 20; ++i) {
    const BinaryFrame f = feed.receive(next_binary(*bin));
    if (i == 0) {
      EXPECT_FALSE(f.header.delta) << "the first frame is a keyframe";
    }
    deltas += f.header.delta;
    by_tick[f.header.tick] = f.agents;
    bin->send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
  }
  EXPECT_GE(deltas, 15);
  // Every JSON snapshot of a tick the binary client decoded says the same within the precision.
  int compared = 0;
  for (int i = 0; i < 30 && compared < 5; ++i) {
    const auto s = wait_for<protocol::Snapshot>(*json);
    auto it = by_tick.find(s.tick);
    if (it == by_tick.end()) continue;
    ++compared;
    ASSERT_EQ(it->second.size(), s.agents.size());
    for (std::size_t k = 0; k < s.agents.size(); ++k) {
      const protocol::AgentState a = protocol::dequantise(it->second[k]);
      EXPECT_EQ(a.id, s.agents[k].id);
      EXPECT_NEAR(a.x, s.agents[k].x, 1.0 / 128 + 0.0005);
      EXPECT_NEAR(a.y, s.agents[k].y, 1.0 / 128 + 0.0005);
      EXPECT_EQ(a.state, s.agents[k].state);
    }
  }
  EXPECT_GE(compared, 1);
}

// A viewer's quantum (hello, then viewport) sets its frames' scale: positions within half the
// quantum of the JSON snapshot's, deltas on frames of the same scale only, a keyframe after a
// change; a quantum that is not a power of two from 1 to 1/64 is refused and changes nothing.
TEST_F(BinaryTest, AQuantumFromHelloOrViewportSetsTheFramesScale) {
  auto commander = greeted(protocol::Role::commander);
  spawn_crossing_crowd(*commander);
  auto json = greeted(protocol::Role::viewer);
  auto bin = connect();
  bin->send(R"({"type":"hello","protocol":1,"role":"viewer","format":"binary","quantum":0.25})");
  wait_for<protocol::Welcome>(*bin);
  Feed feed;
  std::map<std::uint64_t, std::vector<QuantAgent>> quarter;
  int deltas = 0;
  for (int i = 0; i < 12; ++i) {
    const BinaryFrame f = feed.receive(next_binary(*bin));
    ASSERT_EQ(f.header.scale, 2);
    if (i == 0) EXPECT_FALSE(f.header.delta);
    deltas += f.header.delta;
    quarter[f.header.tick] = f.agents;
    bin->send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
  }
  EXPECT_GE(deltas, 8);
  int compared = 0;
  for (int i = 0; i < 40 && compared < 3; ++i) {
    const auto s = wait_for<protocol::Snapshot>(*json);
    auto it = quarter.find(s.tick);
    if (it == quarter.end()) continue;
    ++compared;
    ASSERT_EQ(it->second.size(), s.agents.size());
    for (std::size_t k = 0; k < s.agents.size(); ++k) {
      const protocol::AgentState a = protocol::dequantise(it->second[k], 2);
      EXPECT_NEAR(a.x, s.agents[k].x, 0.125 + 1.0 / 128 + 0.0005);
      EXPECT_NEAR(a.y, s.agents[k].y, 0.125 + 1.0 / 128 + 0.0005);
    }
  }
  EXPECT_GE(compared, 1);
  // A quantum of 1 unit from the viewport message: the first frame at scale 0 is a keyframe, the
  // ones after it deltas again; frames still in flight at 1/4 come first.
  bin->send(R"({"type":"viewport","quantum":1})");
  bool switched = false;
  int coarse_deltas = 0;
  for (int i = 0; i < 40 && coarse_deltas < 3; ++i) {
    const BinaryFrame f = feed.receive(next_binary(*bin));
    bin->send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
    if (f.header.scale == 2) {
      ASSERT_FALSE(switched) << "a 1/4-unit frame after the 1-unit ones";
      continue;
    }
    ASSERT_EQ(f.header.scale, 0);
    if (!switched) EXPECT_FALSE(f.header.delta) << "the first frame of a new scale is a keyframe";
    switched = true;
    coarse_deltas += f.header.delta;
  }
  EXPECT_EQ(coarse_deltas, 3);
  bin->send(R"({"type":"viewport","quantum":0.3})");
  EXPECT_EQ(wait_for<protocol::Error>(*bin).code, protocol::ErrorCode::bad_field);
  for (int i = 0; i < 3; ++i) {
    const BinaryFrame f = feed.receive(next_binary(*bin));
    EXPECT_EQ(f.header.scale, 0);
    bin->send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
  }
  auto refused = connect();
  refused->send(R"({"type":"hello","protocol":1,"role":"viewer","format":"binary","quantum":3})");
  EXPECT_EQ(wait_for<protocol::Error>(*refused).code, protocol::ErrorCode::bad_field);
}

TEST_F(BinaryTest, WithoutAcksEveryFrameIsAKeyframeAndAKeyframeCanBeAskedFor) {
  auto commander = greeted(protocol::Role::commander);
  spawn(*commander, 1, {{100, 100}, {200, 200}}, true);
  auto bin = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  Feed feed;
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(feed.receive(next_binary(*bin)).header.delta);
  // Acknowledged: deltas; then a keyframe request: the next frame is whole again.
  const BinaryFrame f = feed.receive(next_binary(*bin));
  bin->send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
  bool delta = false;
  for (int i = 0; i < 10 && !delta; ++i) delta = feed.receive(next_binary(*bin)).header.delta;
  EXPECT_TRUE(delta);
  bin->send(protocol::encode(protocol::KeyframeRequest{}));
  bool keyframe = false;
  for (int i = 0; i < 10 && !keyframe; ++i)
    keyframe = !feed.receive(next_binary(*bin)).header.delta;
  EXPECT_TRUE(keyframe);
}

// A client that acknowledges, then stops (it reads slowly, or not at all) is sent at most 16
// frames past its last ack and then nothing, so no backlog waits in the socket buffers; a
// keyframe request starts its feed again. Ticks are driven by hand (pause, step).
TEST_F(BinaryTest, AClientBehindOnAcksIsSentNoBacklogUntilItAsksAgain) {
  auto commander = greeted(protocol::Role::commander);
  spawn(*commander, 1, {{100, 100}, {200, 200}}, true);
  commander->send(R"({"type":"command","seq":2,"cmd":"pause"})");
  wait_for<protocol::Ack>(*commander, [](const protocol::Ack& a) { return a.seq == 2; });
  auto bin = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  auto step = [&] { return this->step(*commander); };
  auto sync = [&] { this->sync(std::span(&bin, 1)); };
  const std::uint64_t first = step();
  Feed feed;
  std::uint64_t tick = 0;
  while (tick != first) tick = feed.receive(next_binary(*bin)).header.tick;
  bin->send(protocol::encode(protocol::SnapshotAck{first}));
  sync();
  const double dropped_before = metric("herd_snapshots_dropped_total");
  const std::string held = R"(herd_snapshot_drops_total{reason="held_for_acks"})";
  EXPECT_EQ(metric(held), 0);
  std::uint64_t last = 0;
  for (int i = 0; i < 20; ++i) last = step();
  EXPECT_EQ(metric(held), 4) << "the last 4 held back";
  EXPECT_GE(metric("herd_snapshots_dropped_total") - dropped_before, 4);
  bin->send(protocol::encode(protocol::KeyframeRequest{}));
  bin->send(R"({"type":"ping","id":99})");
  const std::uint64_t again = [&] {  // stepped once the request has reached the server (the pong)
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto data = bin->receive(Millis(200));
      if (data && data->find(R"("type":"pong")") != std::string::npos) break;
      if (data && protocol::is_binary_snapshot(*data)) {
        const BinaryFrame f = feed.receive(*data);  // sent before the hold: deltas on the ack
        EXPECT_GT(f.header.tick, first);
        EXPECT_LE(f.header.tick, first + 16);
        EXPECT_EQ(f.header.baseline_tick, first);
      }
    }
    return step();
  }();
  EXPECT_EQ(again, last + 1);
  // Frames sent before the hold may still be on their way (some may have been replaced, latest
  // wins); after them, the keyframe of the new step, and nothing from the ticks held back.
  for (;;) {
    const BinaryFrame f = feed.receive(next_binary(*bin));
    if (f.header.tick == again || ::testing::Test::HasFailure()) {
      EXPECT_FALSE(f.header.delta);
      EXPECT_EQ(f.agents.size(), 2u);
      break;
    }
    EXPECT_LE(f.header.tick, first + 16) << "a frame of a tick held back";
  }
}

TEST_F(BinaryTest, AViewportLimitsTheFrameToTheAgentsInViewPlusMargin) {
  auto commander = greeted(protocol::Role::commander);
  // A row of standing agents every 20 units; the viewport [100, 300] x [0, 600] has a margin of
  // 600 / 8 + 4 = 79 units: x in [21, 379].
  std::vector<sim::Vec2> at;
  for (int i = 0; i < 39; ++i) at.push_back({10.0 + 20 * i, 300});
  const auto ids = spawn(*commander, 1, at, false);
  auto bin = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  bin->send(protocol::encode(protocol::ViewportMsg{protocol::Viewport{100, 0, 300, 600}}));
  Feed feed;
  std::vector<std::uint32_t> expected;
  for (std::size_t i = 0; i < at.size(); ++i)
    if (at[i].x >= 21 && at[i].x <= 379) expected.push_back(ids[i]);
  std::vector<std::uint32_t> got;
  for (int i = 0; i < 30; ++i) {
    const BinaryFrame f = feed.receive(next_binary(*bin));
    bin->send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
    got.clear();
    for (const QuantAgent& a : f.agents) got.push_back(a.id);
    if (f.header.filtered && got == expected) break;
  }
  EXPECT_EQ(got, expected);
  // The whole world again: the agents out of view come back, as a delta on the filtered frame.
  bin->send(protocol::encode(protocol::ViewportMsg{}));
  std::size_t seen = 0;
  for (int i = 0; i < 30 && seen != ids.size(); ++i) {
    const BinaryFrame f = feed.receive(next_binary(*bin));
    bin->send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
    seen = f.agents.size();
  }
  EXPECT_EQ(seen, ids.size());
}

TEST_F(BinaryTest, AutoFormatIsJsonForSmallWorldsAndBinaryForLargeOnes) {
  auto commander = greeted(protocol::Role::commander);
  auto viewer = greeted(protocol::Role::viewer, protocol::SnapshotFormat::automatic);
  wait_for<protocol::Snapshot>(*viewer);  // JSON while small
  std::vector<sim::Vec2> at;
  for (int i = 0; i < 1000; ++i) at.push_back({1.0 + (i % 40) * 19.5, 1.0 + (i / 40) * 23.0});
  spawn(*commander, 1, at, false);
  spawn(*commander, 2, {{400, 300}}, false);
  Feed feed;
  const BinaryFrame f = feed.receive(next_binary(*viewer));
  EXPECT_EQ(f.agents.size(), 1001u);
}

TEST_F(BinaryTest, ViewportAckAndKeyframeAreValidatedAndNeedHello) {
  auto c = connect();
  c->send(R"({"type":"ack","tick":3})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::hello_required);
  c->send(R"({"type":"hello","protocol":1,"role":"viewer","format":"binary"})");
  wait_for<protocol::Welcome>(*c);
  c->send(R"({"type":"viewport","x0":10,"y0":0,"x1":5,"y1":10})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_field);
  c->send(R"({"type":"viewport","x0":0,"y0":0,"x1":1e308,"y1":10})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_field);
  c->send(R"({"type":"ack","tick":"soon"})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_field);
  c->send_binary(std::string("\x48\x01\x00\x02", 4));  // a client's binary frame: refused as before
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::binary_not_supported);
}

// Acks of ticks never sent (at 2^53 and just under it, the largest the protocol takes, and far
// beyond it, near 2^63 and 2^64) change nothing: snapshots keep coming, and deltas still follow
// acks of frames that were sent.
TEST_F(BinaryTest, AcksOfTicksNeverSentLeaveTheFeedRunning) {
  auto c = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  next_binary(*c);
  for (const char* tick :
       {"9007199254740991", "9007199254740992", "9223372036854775807", "18446744073709551615"})
    c->send(std::string(R"({"type":"ack","tick":)") + tick + "}");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_field)
      << "2^63 - 1 is over the protocol's 2^53";
  std::uint64_t last = 0;
  for (int i = 0; i < 5; ++i) {
    const auto header = protocol::read_binary_header(next_binary(*c));
    ASSERT_TRUE(std::holds_alternative<protocol::BinaryHeader>(header)) << "frame " << i;
    const std::uint64_t tick = std::get<protocol::BinaryHeader>(header).tick;
    EXPECT_GT(tick, last);
    last = tick;
  }
}

class AckBudgetTest : public BinaryTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    BinaryTest::configure(config, def);
    config.rate_limit = 2;
    config.rate_burst = 10;
  }
};

// Acks at the snapshot rate leave the command budget whole; a flood of acks does not.
TEST_F(AckBudgetTest, AcksDoNotEatTheCommandBudgetButAFloodOfThemDoes) {
  auto c = greeted(protocol::Role::commander, protocol::SnapshotFormat::binary);
  Feed feed;
  for (int i = 0; i < 30; ++i) {  // 30 acks: three times the burst
    const BinaryFrame f = feed.receive(next_binary(*c));
    c->send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
  }
  for (std::uint32_t seq = 1; seq <= 8; ++seq) c->send(command(seq, sim::Spawn{1, 0, {}}));
  for (std::uint32_t seq = 1; seq <= 8; ++seq) {
    const auto ack =
        wait_for<protocol::Ack>(*c, [&](const protocol::Ack& a) { return a.seq == seq; });
    EXPECT_EQ(ack.seq, seq);
  }
  // Far more acks than frames: beyond the free ones they count, and are refused.
  for (int i = 0; i < 20; ++i) c->send(protocol::encode(protocol::SnapshotAck{1}));
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::rate_limited);
}

// 140 binary sessions, more than one step of frames (kViewersPerStep, 128), encoded on the sim's
// pool (two threads here) and written by two I/O threads, ticks driven by hand: every viewer gets
// every snapshot whole, with and without a viewport, each a delta on the one it acknowledged.
class ManyBinaryTest : public BinaryTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    BinaryTest::configure(config, def);
    config.sim_threads = 2;
    config.max_sessions_per_address = 200;
  }
};

TEST_F(ManyBinaryTest, AHundredAndFortyViewersEachGetEveryFrameWhole) {
  auto commander = greeted(protocol::Role::commander);
  spawn_crossing_crowd(*commander);
  commander->send(R"({"type":"command","seq":2,"cmd":"pause"})");
  wait_for<protocol::Ack>(*commander, [](const protocol::Ack& a) { return a.seq == 2; });
  constexpr int kViewers = 140;
  std::vector<std::unique_ptr<WsClient>> viewers;
  std::vector<Feed> feeds(kViewers);
  for (int v = 0; v < kViewers; ++v) {
    viewers.push_back(greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary));
    if (v % 2) viewers.back()->send(R"({"type":"viewport","x0":0,"y0":0,"x1":400,"y1":300})");
  }
  sync(viewers);  // the viewports in before the first step
  int deltas = 0;
  std::uint64_t previous = 0;
  for (int round = 0; round < 6; ++round) {
    const std::uint64_t tick = step(*commander);
    for (int v = 0; v < kViewers; ++v) {
      WsClient& c = *viewers[static_cast<std::size_t>(v)];
      const BinaryFrame f = feeds[static_cast<std::size_t>(v)].receive(next_binary(c));
      ASSERT_EQ(f.header.tick, tick) << "viewer " << v;
      EXPECT_EQ(f.header.filtered, v % 2 == 1);
      if (round > 0) {
        EXPECT_TRUE(f.header.delta) << "viewer " << v;
        EXPECT_EQ(f.header.baseline_tick, previous) << "viewer " << v;
      }
      deltas += f.header.delta;
      c.send(protocol::encode(protocol::SnapshotAck{f.header.tick}));
    }
    sync(viewers);  // every ack in before the next step
    previous = tick;
  }
  EXPECT_EQ(deltas, kViewers * 5) << "acknowledged states became baselines";
}

}  // namespace
}  // namespace herd::net
