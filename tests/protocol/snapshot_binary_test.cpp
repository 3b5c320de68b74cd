// Binary snapshots (PROTOCOL.md "Binary snapshots"): quantisation bounds, keyframes and deltas,
// acknowledgements in any order, lost frames, viewports, hostile input and cached deltas. The
// shared fixtures and the client's side (BinaryClient, the client messages) are in
// binary_client_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <random>

#include "protocol/snapshot_binary.hpp"
#include "rng.hpp"

namespace herd::protocol {
namespace {

constexpr double kW = 1000, kH = 600;

// A crowd that moves a little each snapshot: some turn, some stop, some leave, some come.
class Crowd {
 public:
  explicit Crowd(std::uint64_t seed, int n = 200) : rng_(seed) {
    for (int i = 0; i < n; ++i) add();
  }
  void add() {
    AgentState a;
    a.id = next_id_++;
    a.x = rng_.uniform(0, kW);
    a.y = rng_.uniform(0, kH);
    a.vx = rng_.uniform(-30, 30);
    a.vy = rng_.uniform(-30, 30);
    a.r = rng_.uniform(0, 1) < 0.9 ? 1.5 : 4;
    a.group = static_cast<std::uint8_t>(rng_.uniform(0, 1) < 0.8 ? 0 : 3);
    a.state = sim::MoveState::moving;
    agents_.push_back(a);
  }
  // One snapshot interval (0.05 s) later.
  void step() {
    for (AgentState& a : agents_) {
      if (rng_.uniform(0, 1) < 0.05) a.vx = rng_.uniform(-30, 30), a.vy = rng_.uniform(-30, 30);
      if (rng_.uniform(0, 1) < 0.01) a.vx = a.vy = 0, a.state = sim::MoveState::arrived;
      if (rng_.uniform(0, 1) < 0.01) a.collided = !a.collided;
      a.x = std::clamp(a.x + a.vx * 0.05, 0.0, kW);
      a.y = std::clamp(a.y + a.vy * 0.05, 0.0, kH);
    }
    if (rng_.uniform(0, 1) < 0.3 && !agents_.empty())
      agents_.erase(agents_.begin() + static_cast<long>(rng_.uniform(0, 1) *
                                                        static_cast<double>(agents_.size() - 1)));
    if (rng_.uniform(0, 1) < 0.3) add();
    tick_ += 3;
  }
  QuantState quantised(const QuantState* previous) const {
    return quantise(tick_, static_cast<double>(tick_) / 60, sim::AvoidanceMode::cardioid, kW, kH,
                    agents_, previous);
  }
  const std::vector<AgentState>& agents() const { return agents_; }

 private:
  sim::Rng rng_;
  std::vector<AgentState> agents_;
  std::uint32_t next_id_ = 1;
  std::uint64_t tick_ = 100;
};

BinaryFrame decode_ok(const std::string& bytes, std::span<const QuantAgent> baseline = {}) {
  auto d = decode_binary(bytes, baseline);
  if (auto* err = std::get_if<std::string>(&d)) ADD_FAILURE() << *err;
  return std::get<BinaryFrame>(std::move(d));
}

TEST(BinarySnapshot, KeyframeRoundTripsWithinTheStatedBounds) {
  Crowd crowd(1);
  const QuantState q = crowd.quantised(nullptr);
  const BinaryFrame f = decode_ok(encode_binary({&q, nullptr}, std::nullopt, false));
  ASSERT_EQ(f.agents, q.agents);
  EXPECT_FALSE(f.header.delta);
  ASSERT_EQ(f.agents.size(), crowd.agents().size());
  for (std::size_t i = 0; i < f.agents.size(); ++i) {
    const AgentState a = dequantise(f.agents[i]);
    const AgentState& t = crowd.agents()[i];
    EXPECT_EQ(a.id, t.id);
    EXPECT_LE(std::abs(a.x - t.x), 1.0 / 128);  // 1/64 unit, rounded
    EXPECT_LE(std::abs(a.y - t.y), 1.0 / 128);
    const double speed = std::hypot(t.vx, t.vy);
    EXPECT_LE(std::abs(std::hypot(a.vx, a.vy) - speed), 0.5 / 16 + 1e-9);
    if (speed > 0.1) {
      const double turn =
          std::remainder(std::atan2(a.vy, a.vx) - std::atan2(t.vy, t.vx), 2 * std::numbers::pi);
      EXPECT_LE(std::abs(turn), 0.5 * 2 * std::numbers::pi / 256 + 1e-9);
    }
    EXPECT_LE(std::abs(a.r - t.r), 1.0 / 128);
    EXPECT_EQ(a.group, t.group);
    EXPECT_EQ(a.state, t.state);
    EXPECT_EQ(a.collided, t.collided);
  }
}

// The header's avoidance byte names every mode, orca (3) and cfsm (4) included, and nothing past
// them.
TEST(BinarySnapshot, TheAvoidanceModeTravelsInTheHeader) {
  Crowd crowd(3);
  QuantState q = crowd.quantised(nullptr);
  for (const auto [mode, byte] :
       {std::pair{sim::AvoidanceMode::orca, 3}, std::pair{sim::AvoidanceMode::cfsm, 4}}) {
    q.avoidance = mode;
    const std::string key = encode_binary({&q, nullptr}, std::nullopt, false);
    EXPECT_EQ(decode_ok(key).header.avoidance, mode);
    ASSERT_EQ(static_cast<std::uint8_t>(key[3]), byte) << "byte 3: the mode";
  }
  std::string past = encode_binary({&q, nullptr}, std::nullopt, false);
  past[3] = 5;
  const auto refused = decode_binary(past);
  ASSERT_TRUE(std::holds_alternative<std::string>(refused));
  EXPECT_NE(std::get<std::string>(refused).find("avoidance"), std::string::npos);
}

// Flags bit 3: the snapshot's serial, a varint after the tick (and back), in keyframes and deltas;
// frames without it (the fixtures) still decode, with serial 0.
TEST(BinarySnapshot, TheSerialTravelsInTheHeaderWhenGiven) {
  Crowd crowd(3);
  QuantState a = crowd.quantised(nullptr);
  a.serial = 300;
  crowd.step();
  QuantState b = crowd.quantised(&a);
  b.serial = 301;
  const std::string key = encode_binary({&a, nullptr}, std::nullopt, false);
  EXPECT_EQ(static_cast<std::uint8_t>(key[2]) & 8, 8) << "flags bit 3";
  const BinaryFrame k = decode_ok(key);
  EXPECT_EQ(k.header.serial, 300u);
  EXPECT_EQ(k.agents, a.agents);
  const BinaryFrame d =
      decode_ok(encode_binary({&b, nullptr}, AgentSet{&a, nullptr}, false), k.agents);
  EXPECT_EQ(d.header.serial, 301u);
  EXPECT_EQ(d.header.baseline_tick, a.tick);
  EXPECT_EQ(d.agents, b.agents);
  auto snap = to_snapshot(d);
  ASSERT_TRUE(std::holds_alternative<Snapshot>(snap));
  EXPECT_EQ(std::get<Snapshot>(snap).serial, 301u);
  QuantState none = a;
  none.serial = 0;
  const std::string plain = encode_binary({&none, nullptr}, std::nullopt, false);
  EXPECT_EQ(static_cast<std::uint8_t>(plain[2]) & 8, 0);
  EXPECT_EQ(decode_ok(plain).header.serial, 0u);
  std::string zero = plain;  // bit 3 set with a serial of 0 is malformed
  zero[2] = static_cast<char>(zero[2] | 8);
  zero.insert(zero.begin() + 5, '\0');
  EXPECT_TRUE(std::holds_alternative<std::string>(decode_binary(zero)));
}

TEST(BinarySnapshot, HysteresisKeepsHeadingAndSpeedWithinOneAndAHalfSteps) {
  Crowd crowd(2);
  QuantState prev = crowd.quantised(nullptr);
  for (int s = 0; s < 20; ++s) {
    crowd.step();
    const QuantState q = crowd.quantised(&prev);
    for (std::size_t i = 0; i < q.agents.size(); ++i) {
      const AgentState a = dequantise(q.agents[i]);
      const AgentState& t = crowd.agents()[i];
      const double speed = std::hypot(t.vx, t.vy);
      EXPECT_LE(std::abs(std::hypot(a.vx, a.vy) - speed), 1.5 / 16 + 1e-9);
      if (speed > 0.1) {
        const double turn =
            std::remainder(std::atan2(a.vy, a.vx) - std::atan2(t.vy, t.vx), 2 * std::numbers::pi);
        EXPECT_LE(std::abs(turn), 1.5 * 2 * std::numbers::pi / 256 + 1e-9);
      }
    }
    prev = q;
  }
}

// The client keeps the states it decoded; the server encodes against any of them it was told
// of. Whatever acknowledged state a delta is built on, the client ends with the server's state.
TEST(BinarySnapshot, DeltasOnAnyAcknowledgedBaselineReproduceTheServersState) {
  Crowd crowd(3);
  std::vector<QuantState> server;
  server.push_back(crowd.quantised(nullptr));
  std::map<std::uint64_t, std::vector<QuantAgent>> client;
  client[server[0].tick] =
      decode_ok(encode_binary({&server[0], nullptr}, std::nullopt, false)).agents;
  sim::Rng pick(9);
  for (int s = 1; s < 60; ++s) {
    crowd.step();
    server.push_back(crowd.quantised(&server.back()));
    const QuantState& cur = server.back();
    // Any state the client holds, in any order: an old one, the newest, one in between.
    auto it = client.begin();
    std::advance(it,
                 static_cast<long>(pick.uniform(0, 1) * static_cast<double>(client.size() - 1)));
    const QuantState* base = nullptr;
    for (const QuantState& q : server)
      if (q.tick == it->first) base = &q;
    ASSERT_NE(base, nullptr);
    const std::string bytes = encode_binary({&cur, nullptr}, AgentSet{base, nullptr}, false);
    const BinaryFrame f = decode_ok(bytes, it->second);
    EXPECT_EQ(f.header.baseline_tick, base->tick);
    ASSERT_EQ(f.agents, cur.agents) << "snapshot " << s;
    if (pick.uniform(0, 1) < 0.7)
      client[cur.tick] = f.agents;  // some frames are never acknowledged
  }
}

// At every coarser scale, a keyframe and then deltas decode to the coarsened states exactly, and
// positions are within half a quantum (plus the 1/128 of the first rounding) of the agents'.
TEST(BinarySnapshot, CoarserScalesRoundTripWithinHalfTheirQuantum) {
  for (std::uint8_t scale = 0; scale < kFinestScale; ++scale) {
    Crowd crowd(11 + scale);
    QuantState fine = crowd.quantised(nullptr);
    QuantState base = coarsen(fine, scale);
    EXPECT_EQ(base.x_bits, position_bits(kW) - (kFinestScale - scale));
    std::vector<QuantAgent> held =
        decode_ok(encode_binary({&base, nullptr}, std::nullopt, false)).agents;
    std::size_t bytes_fine = 0, bytes_coarse = 0;
    for (int s = 1; s < 30; ++s) {
      crowd.step();
      QuantState next_fine = crowd.quantised(&fine);
      const QuantState cur = coarsen(next_fine, scale);
      const std::string frame = encode_binary({&cur, nullptr}, AgentSet{&base, nullptr}, false);
      bytes_coarse += frame.size();
      bytes_fine += encode_binary({&next_fine, nullptr}, AgentSet{&fine, nullptr}, false).size();
      const BinaryFrame f = decode_ok(frame, held);
      EXPECT_EQ(f.header.scale, scale);
      ASSERT_EQ(f.agents, cur.agents) << "scale " << int{scale} << " snapshot " << s;
      auto snap = to_snapshot(f);
      ASSERT_TRUE(std::holds_alternative<Snapshot>(snap));
      const double bound = std::ldexp(0.5, -scale) + 1.0 / 128 + 1e-9;
      const auto& agents = crowd.agents();
      const auto& got = std::get<Snapshot>(snap).agents;
      ASSERT_EQ(got.size(), agents.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_LE(std::abs(got[i].x - std::min(agents[i].x, kW - 1.0 / 64)), bound) << i;
        ASSERT_LE(std::abs(got[i].y - std::min(agents[i].y, kH - 1.0 / 64)), bound) << i;
      }
      held = f.agents;
      base = cur;
      fine = std::move(next_fine);
    }
    EXPECT_LT(bytes_coarse, bytes_fine) << "scale " << int{scale};
  }
}

// Frames the client never received (dropped by latest-wins, or lost) change nothing: the next
// one is built on a state the client has.
TEST(BinarySnapshot, ALostDeltaNeverCorruptsTheClientsView) {
  Crowd crowd(4);
  QuantState acked = crowd.quantised(nullptr);
  std::vector<QuantAgent> view =
      decode_ok(encode_binary({&acked, nullptr}, std::nullopt, false)).agents;
  QuantState prev = acked;
  for (int s = 0; s < 40; ++s) {
    crowd.step();
    QuantState cur = crowd.quantised(&prev);
    const std::string bytes = encode_binary({&cur, nullptr}, AgentSet{&acked, nullptr}, false);
    prev = cur;
    if (s % 3 != 2) continue;  // two of three frames are lost
    const BinaryFrame f = decode_ok(bytes, view);
    ASSERT_EQ(f.agents, cur.agents);
    view = f.agents;
    acked = cur;
  }
  // A delta decoded against the wrong baseline is refused, not applied.
  crowd.step();
  const QuantState cur = crowd.quantised(&prev);
  const std::string bytes = encode_binary({&cur, nullptr}, AgentSet{&acked, nullptr}, false);
  std::vector<QuantAgent> wrong = view;
  wrong.pop_back();
  EXPECT_TRUE(std::holds_alternative<std::string>(decode_binary(bytes, wrong)));
}

// The agents of a state in a viewport plus its margin, by brute force over decoded positions.
std::vector<std::uint32_t> brute_in_view(const QuantState& q, const Viewport& v) {
  const double m = v.x1 - v.x0 > v.y1 - v.y0 ? (v.x1 - v.x0) / 8 + 4 : (v.y1 - v.y0) / 8 + 4;
  std::vector<std::uint32_t> ids;
  for (const QuantAgent& a : q.agents) {
    const double x = a.x / 64.0, y = a.y / 64.0;
    if (x >= v.x0 - m && x <= v.x1 + m && y >= v.y0 - m && y <= v.y1 + m) ids.push_back(a.id);
  }
  return ids;
}

TEST(BinarySnapshot, InterestFilteringSendsExactlyTheAgentsInViewPlusMargin) {
  Crowd crowd(5, 2000);
  QuantState prev = crowd.quantised(nullptr);
  ViewGrid grid;
  grid.rebuild(prev);
  const std::vector<Viewport> views = {{100, 100, 300, 250},         {-50, -50, 20, 20},
                                       {900, 500, 1200, 900},        {0, 0, kW, kH},
                                       {400.3, 200.7, 400.4, 200.8}, {2000, 2000, 3000, 3000}};
  std::vector<std::uint32_t> sel;
  for (const Viewport& v : views) {
    grid.select(prev, v, sel);
    std::vector<std::uint32_t> ids;
    for (std::uint32_t i : sel) ids.push_back(prev.agents[i].id);
    EXPECT_EQ(ids, brute_in_view(prev, v)) << v.x0 << "," << v.y0;
  }
  // Viewports of every size and place: cells wholly inside, cut by an edge, or out of the world.
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> coord(-100, kW + 100), size(0, 600);
  for (int k = 0; k < 300; ++k) {
    const double x0 = coord(rng), y0 = coord(rng);
    const Viewport v{x0, y0, x0 + size(rng), y0 + size(rng)};
    grid.select(prev, v, sel);
    std::vector<std::uint32_t> ids;
    for (std::uint32_t i : sel) ids.push_back(prev.agents[i].id);
    ASSERT_EQ(ids, brute_in_view(prev, v)) << v.x0 << "," << v.y0 << " to " << v.x1 << "," << v.y1;
  }
  // Moving the viewport: agents leaving it are removed on the client, agents entering it added.
  Viewport v{100, 100, 300, 250};
  grid.select(prev, v, sel);
  std::vector<std::uint32_t> base_sel = sel;
  std::vector<QuantAgent> client =
      decode_ok(encode_binary({&prev, &sel}, std::nullopt, true)).agents;
  for (int s = 0; s < 30; ++s) {
    crowd.step();
    const QuantState cur = crowd.quantised(&prev);
    grid.rebuild(cur);
    v.x0 += 7;
    v.x1 += 7;
    grid.select(cur, v, sel);
    const BinaryFrame f =
        decode_ok(encode_binary({&cur, &sel}, AgentSet{&prev, &base_sel}, true), client);
    EXPECT_TRUE(f.header.filtered);
    std::vector<std::uint32_t> ids;
    for (const QuantAgent& a : f.agents) ids.push_back(a.id);
    ASSERT_EQ(ids, brute_in_view(cur, v));
    client = f.agents;
    prev = cur;
    base_sel = sel;
  }
}

// The benchmark's random crowd as the size goals state it: one size, one group, every agent at its
// preferred speed in some direction, 100 square units each (the benchmark measures the deltas).
TEST(BinarySnapshot, ARandomCrowdKeyframeFitsInSixBytesAnAgent) {
  sim::Rng rng(6);
  const double side = std::sqrt(100.0 * 10000);
  std::vector<AgentState> agents(10000);
  for (std::uint32_t i = 0; i < agents.size(); ++i) {
    const double a = rng.uniform(0, 2 * std::numbers::pi);
    AgentState& s = agents[i];
    s.id = i + 1;
    s.x = rng.uniform(0, side);
    s.y = rng.uniform(0, side);
    s.vx = std::cos(a);
    s.vy = std::sin(a);
    s.r = 1.5;
    s.state = sim::MoveState::moving;
  }
  const QuantState q = quantise(1, 0.05, sim::AvoidanceMode::cardioid, side, side, agents);
  const std::string key = encode_binary({&q, nullptr}, std::nullopt, false);
  EXPECT_LE(static_cast<double>(key.size()) / static_cast<double>(agents.size()), 5.3);
  // One unit's quantum, a whole-world view of up to 1000 pixels: under 4 bytes an agent.
  const QuantState one = coarsen(q, 0);
  const std::string coarse = encode_binary({&one, nullptr}, std::nullopt, false);
  EXPECT_LE(static_cast<double>(coarse.size()) / static_cast<double>(agents.size()), 3.8);
}

// Truncations, bit flips and random bytes: decoding stops with an error or gives some agents,
// and never reads outside the frame (the sanitizer build checks that).
TEST(BinarySnapshot, HostileAndTruncatedInputNeverCrashes) {
  Crowd crowd(7, 50);
  QuantState a = crowd.quantised(nullptr);
  crowd.step();
  const QuantState b = crowd.quantised(&a);
  const std::string key = encode_binary({&a, nullptr}, std::nullopt, false);
  const std::string delta =
      encode_binary({&b, nullptr}, AgentSet{&a, nullptr}, false, R"({"type":"snapshot"})");
  sim::Rng rng(11);
  int errors = 0;
  for (const std::string* frame : {&key, &delta}) {
    for (std::size_t n = 0; n < frame->size(); ++n)
      errors += std::holds_alternative<std::string>(decode_binary(frame->substr(0, n), a.agents));
    for (int k = 0; k < 3000; ++k) {
      std::string bad = *frame;
      const int flips = 1 + static_cast<int>(rng.uniform(0, 4));
      for (int i = 0; i < flips; ++i)
        bad[static_cast<std::size_t>(rng.uniform(0, 1) * static_cast<double>(bad.size() - 1))] ^=
            static_cast<char>(1 << static_cast<int>(rng.uniform(0, 7.99)));
      auto d = decode_binary(bad, a.agents);
      if (auto* f = std::get_if<BinaryFrame>(&d)) {
        for (std::size_t i = 1; i < f->agents.size(); ++i)
          ASSERT_LT(f->agents[i - 1].id, f->agents[i].id);
        (void)to_snapshot(*f);
      }
    }
  }
  EXPECT_GT(errors, 0);
  for (int k = 0; k < 2000; ++k) {
    std::string junk(static_cast<std::size_t>(rng.uniform(0, 64)), '\0');
    for (char& c : junk) c = static_cast<char>(static_cast<unsigned char>(rng.uniform(0, 255.99)));
    if (k % 2 == 0 && junk.size() > 2) junk[0] = 0x48, junk[1] = 1;
    (void)decode_binary(junk, a.agents);
  }
}

// Frames copied from a DeltaCache decode to the same agents as frames written on the spot, for
// whole states and for viewports, including agents whose record is too long to cache, and both
// when the two states hold the same agents and when agents came and went between them.
TEST(BinarySnapshot, CachedDeltasDecodeLikeDirectOnes) {
  Crowd crowd(8, 1500);
  QuantState a = crowd.quantised(nullptr);
  ViewGrid ga;
  ga.rebuild(a);
  int same = 0, changed = 0;
  for (int s = 0; s < 16; ++s) {
    crowd.step();
    QuantState b = crowd.quantised(&a);
    if (s == 5)
      b.agents[3].x = b.agents[3].x > 30000 ? 0 : 60000, b.agents[3].radius = 1,
      b.agents[3].flags ^= 4;
    ViewGrid gb;
    gb.rebuild(b);
    DeltaCache cache;
    cache.build(a, b);
    (cache.current_of_baseline() ? changed : same)++;
    {
      const std::string direct = encode_binary({&b, nullptr}, AgentSet{&a, nullptr}, false);
      const std::string copied =
          encode_binary({&b, nullptr}, AgentSet{&a, nullptr}, false, {}, &cache);
      EXPECT_EQ(copied, direct);  // whole states: the same k, so the same bytes
      ASSERT_EQ(decode_ok(copied, a.agents).agents, b.agents);
    }
    const std::vector<Viewport> views = {{0, 0, kW, kH}, {100, 100, 400, 300}, {600, 0, 1000, 200}};
    for (const Viewport& v : views) {
      std::vector<std::uint32_t> sa, sb;
      ga.select(a, v, sa);
      gb.select(b, v, sb);
      const std::string direct = encode_binary({&b, &sb}, AgentSet{&a, &sa}, true);
      const std::string copied = encode_binary({&b, &sb}, AgentSet{&a, &sa}, true, {}, &cache);
      std::vector<QuantAgent> base;
      for (std::uint32_t i : sa) base.push_back(a.agents[i]);
      const BinaryFrame d1 = decode_ok(direct, base), d2 = decode_ok(copied, base);
      ASSERT_EQ(d1.agents, d2.agents);
      std::vector<QuantAgent> want;
      for (std::uint32_t i : sb) want.push_back(b.agents[i]);
      ASSERT_EQ(d2.agents, want);
    }
    a = std::move(b);
    ga.rebuild(a);
  }
  EXPECT_GT(same, 0);
  EXPECT_GT(changed, 0);
}

}  // namespace
}  // namespace herd::protocol
