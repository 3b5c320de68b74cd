// Binary snapshots from the client's side: the shared fixtures (the same bytes the browser viewer's
// tests decode, pinned byte for byte), BinaryClient's acks and keyframe requests, and the client
// messages of binary snapshots (hello's format, ack, keyframe, viewport).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "protocol/codec.hpp"
#include "protocol/snapshot_binary.hpp"
#include "protocol/snapshot_records.hpp"

namespace herd::protocol {
namespace {

using json = nlohmann::json;

BinaryFrame decode_ok(const std::string& bytes, std::span<const QuantAgent> baseline = {}) {
  auto d = decode_binary(bytes, baseline);
  if (auto* err = std::get_if<std::string>(&d)) ADD_FAILURE() << *err;
  return std::get<BinaryFrame>(std::move(d));
}

// ---- the shared fixtures: the same bytes the browser viewer's tests decode -------------------

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out += digits[b >> 4];
    out += digits[b & 15];
    out += (i % 16 == 15 || i + 1 == bytes.size()) ? '\n' : ' ';
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json agents_json(const std::vector<QuantAgent>& agents) {
  json out = json::array();
  for (const QuantAgent& a : agents)
    out.push_back({{"id", a.id},
                   {"x", a.x},
                   {"y", a.y},
                   {"speed", a.speed},
                   {"heading", a.heading},
                   {"radius", a.radius},
                   {"group", a.group},
                   {"flags", a.flags},
                   {"team", a.team}});
  return out;
}

// The fixture states: a keyframe of six agents, then a delta in which one moved a little off its
// prediction, one far, one turned and stopped, one moved as predicted, one stood still, one left
// and one arrived, with the side section: every kind of record.
struct FixtureFrames {
  QuantState first, second;
  std::string keyframe, delta;
  QuantState coarse_first, coarse_second;  // the same at 1/4 unit
  std::string coarse_keyframe, coarse_delta;
};

FixtureFrames fixture_frames() {
  auto agent = [](std::uint32_t id, double x, double y, double vx, double vy, double r, int group,
                  bool collided) {
    AgentState a;
    a.id = id;
    a.x = x;
    a.y = y;
    a.vx = vx;
    a.vy = vy;
    a.r = r;
    a.group = static_cast<std::uint8_t>(group);
    a.state = sim::MoveState::moving;
    a.collided = collided;
    return a;
  };
  std::vector<AgentState> one = {
      agent(1, 10, 20, 5, 0, 1.5, 0, false), agent(2, 50.5, 30.25, 0, -2, 1.5, 0, false),
      agent(3, 99, 49, -1, 1, 4, 2, true),   agent(5, 70, 10, 2, 0, 1.5, 0, false),
      agent(6, 60, 40, 0, 0, 1.5, 0, false), agent(7, 0, 0, 0, 0, 1.5, 0, false)};
  one[2].team = 2;  // a team travels with radius and group
  one[3].team = 63;
  std::vector<AgentState> two = one;
  two[0].x += 0.05;           // a little
  two[1].x = 80;              // far
  two[2].vx = two[2].vy = 0;  // stopped (keeps its heading)
  two[2].state = sim::MoveState::arrived;
  two[3].x += 0.1;                                     // as its heading and speed predict
  two.erase(two.begin() + 5);                          // 7 left (6 stays still)
  two.push_back(agent(9, 25, 25, 0, 3, 2, 1, false));  // 9 came
  two.back().team = 1;
  FixtureFrames f;
  f.first = quantise(30, 0.5, sim::AvoidanceMode::cardioid, 100, 50, one);
  f.second = quantise(33, 0.55, sim::AvoidanceMode::cardioid, 100, 50, two, &f.first);
  f.keyframe = encode_binary({&f.first, nullptr}, std::nullopt, false);
  const std::string side =
      R"({"type":"snapshot","tick":33,"time":0.55,"avoidance":"cardioid","agents":[],"obstacles":[{"id":1,"x":40,"y":20,"r":5}],"collisions":[],"formations":[]})";
  f.delta = encode_binary({&f.second, nullptr}, AgentSet{&f.first, nullptr}, false, side);
  f.coarse_first = coarsen(f.first, 2);
  f.coarse_second = coarsen(f.second, 2);
  f.coarse_keyframe = encode_binary({&f.coarse_first, nullptr}, std::nullopt, false);
  f.coarse_delta =
      encode_binary({&f.coarse_second, nullptr}, AgentSet{&f.coarse_first, nullptr}, false, side);
  return f;
}

TEST(BinarySnapshot, FixturesPinTheFormatByteForByte) {
  const FixtureFrames f = fixture_frames();
  const std::string dir = std::string(HERD_FIXTURE_DIR) + "/binary/";
  const json expected = {
      {"keyframe", {{"tick", 30}, {"scale", 6}, {"agents", agents_json(f.first.agents)}}},
      {"delta",
       {{"tick", 33},
        {"baseline_tick", 30},
        {"scale", 6},
        {"agents", agents_json(f.second.agents)}}},
      {"coarse_keyframe",
       {{"tick", 30}, {"scale", 2}, {"agents", agents_json(f.coarse_first.agents)}}},
      {"coarse_delta",
       {{"tick", 33},
        {"baseline_tick", 30},
        {"scale", 2},
        {"agents", agents_json(f.coarse_second.agents)}}}};
  if (std::getenv("HERD_UPDATE_FIXTURES")) {  // regenerate after a deliberate format change
    std::ofstream(dir + "keyframe.hex") << hex(f.keyframe);
    std::ofstream(dir + "delta.hex") << hex(f.delta);
    std::ofstream(dir + "coarse_keyframe.hex") << hex(f.coarse_keyframe);
    std::ofstream(dir + "coarse_delta.hex") << hex(f.coarse_delta);
    std::ofstream(dir + "expected.json") << expected.dump(1) << "\n";
  }
  EXPECT_EQ(read_text(dir + "keyframe.hex"), hex(f.keyframe));
  EXPECT_EQ(read_text(dir + "delta.hex"), hex(f.delta));
  EXPECT_EQ(read_text(dir + "coarse_keyframe.hex"), hex(f.coarse_keyframe));
  EXPECT_EQ(read_text(dir + "coarse_delta.hex"), hex(f.coarse_delta));
  EXPECT_EQ(json::parse(read_text(dir + "expected.json")), expected);
  const BinaryFrame k = decode_ok(f.keyframe);
  EXPECT_EQ(k.agents, f.first.agents);
  const BinaryFrame d = decode_ok(f.delta, k.agents);
  EXPECT_EQ(d.agents, f.second.agents);
  // Agent 5 moved exactly as its heading and speed predict ('00'), agent 1 a little off ('10').
  const auto lead = records::lead_between(f.first.time, f.second.time);
  EXPECT_EQ(lead, 51u);
  const auto p5 = records::predict(f.first.agents[3], lead, f.first.x_bits, f.first.y_bits, 6);
  EXPECT_EQ(std::pair(p5.x, p5.y), std::pair(f.second.agents[3].x, f.second.agents[3].y));
  EXPECT_NE(f.second.agents[3].x, f.first.agents[3].x);
  const auto p1 = records::predict(f.first.agents[0], lead, f.first.x_bits, f.first.y_bits, 6);
  EXPECT_NE(p1.x, f.second.agents[0].x);
  auto snap = to_snapshot(d);
  ASSERT_TRUE(std::holds_alternative<Snapshot>(snap));
  ASSERT_TRUE(std::get<Snapshot>(snap).obstacles);
  ASSERT_EQ(std::get<Snapshot>(snap).obstacles->size(), 1u);
  EXPECT_EQ(std::get<Snapshot>(snap).agents.size(), 6u);
  // At 1/4 unit: the same agents, positions within half a quantum (plus the 1/128 of the first
  // rounding) of the 1/64-unit ones, and the delta decodes on the coarse keyframe.
  const BinaryFrame ck = decode_ok(f.coarse_keyframe);
  EXPECT_EQ(ck.header.scale, 2);
  EXPECT_EQ(ck.agents, f.coarse_first.agents);
  const BinaryFrame cd = decode_ok(f.coarse_delta, ck.agents);
  EXPECT_EQ(cd.agents, f.coarse_second.agents);
  EXPECT_LT(f.coarse_keyframe.size(), f.keyframe.size());
  auto coarse = to_snapshot(cd);
  ASSERT_TRUE(std::holds_alternative<Snapshot>(coarse));
  const auto& fine_agents = std::get<Snapshot>(snap).agents;
  const auto& coarse_agents = std::get<Snapshot>(coarse).agents;
  ASSERT_EQ(coarse_agents.size(), fine_agents.size());
  for (std::size_t i = 0; i < fine_agents.size(); ++i) {
    EXPECT_LE(std::abs(coarse_agents[i].x - fine_agents[i].x), 0.125) << i;
    EXPECT_LE(std::abs(coarse_agents[i].y - fine_agents[i].y), 0.125) << i;
  }
}

TEST(BinaryClientFeed, AcksWhatItDecodesAndAsksForAKeyframeWhenItCannot) {
  const FixtureFrames f = fixture_frames();
  BinaryClient client;
  auto r = client.receive(f.delta);  // no baseline yet
  EXPECT_FALSE(r.frame);
  EXPECT_TRUE(r.keyframe);
  r = client.receive(f.keyframe);
  ASSERT_TRUE(r.frame);
  EXPECT_EQ(r.ack, 30u);
  r = client.receive(f.delta);
  ASSERT_TRUE(r.frame);
  EXPECT_EQ(r.ack, 33u);
  EXPECT_EQ(r.frame->agents, f.second.agents);
  r = client.receive("{\"type\":\"snapshot\"}");
  EXPECT_TRUE(r.keyframe);
  EXPECT_FALSE(r.error.empty());
}

// The server may send a keyframe (it had no ack yet) and then a delta on an ack that was in
// flight: a keyframe must not make the client forget the states it acknowledged.
TEST(BinaryClientFeed, AKeyframeKeepsTheStatesAcksInFlightMayStillName) {
  const FixtureFrames f = fixture_frames();
  QuantState mid = f.first;
  mid.tick = 31;
  BinaryClient client;
  ASSERT_TRUE(client.receive(f.keyframe).frame);  // 30, acked
  ASSERT_TRUE(
      client.receive(encode_binary({&mid, nullptr}, std::nullopt, false)).frame);  // 31: a keyframe
  const auto r = client.receive(f.delta);                                          // 33 on 30
  ASSERT_TRUE(r.frame) << r.error;
  EXPECT_EQ(r.frame->agents, f.second.agents);
}

// ---- the new client messages --------------------------------------------------------------------

TEST(BinarySnapshot, ClientMessagesDecodeAndRefuseBadFields) {
  auto ok = [](const std::string& text) {
    auto d = decode_client(text);
    EXPECT_TRUE(std::holds_alternative<ClientMessage>(d)) << text;
    return d;
  };
  auto code = [](const std::string& text) {
    auto d = decode_client(text);
    return std::holds_alternative<Error>(d) ? std::get<Error>(d).code : ErrorCode::bad_json;
  };
  EXPECT_EQ(
      std::get<Hello>(std::get<ClientMessage>(
                          ok(R"({"type":"hello","protocol":1,"role":"viewer","format":"binary"})")))
          .format,
      SnapshotFormat::binary);
  EXPECT_EQ(std::get<SnapshotAck>(std::get<ClientMessage>(ok(R"({"type":"ack","tick":42})"))).tick,
            42u);
  ok(R"({"type":"keyframe"})");
  const auto v = std::get<ViewportMsg>(
      std::get<ClientMessage>(ok(R"({"type":"viewport","x0":1,"y0":2,"x1":3.5,"y1":4})")));
  EXPECT_EQ(v.view, (Viewport{1, 2, 3.5, 4}));
  EXPECT_FALSE(std::get<ViewportMsg>(std::get<ClientMessage>(ok(R"({"type":"viewport"})"))).view);
  EXPECT_EQ(code(R"({"type":"hello","protocol":1,"role":"viewer","format":"xml"})"),
            ErrorCode::bad_field);
  // The position quantum: a power of two from 1 to 1/64, in hello and in viewport.
  auto hello_scale = [&](const std::string& q) {
    return std::get<Hello>(
               std::get<ClientMessage>(
                   ok(R"({"type":"hello","protocol":1,"role":"viewer","quantum":)" + q + "}")))
        .scale;
  };
  EXPECT_EQ(hello_scale("1"), 0);
  EXPECT_EQ(hello_scale("0.25"), 2);
  EXPECT_EQ(hello_scale("0.015625"), 6);
  EXPECT_EQ(std::get<Hello>(
                std::get<ClientMessage>(ok(R"({"type":"hello","protocol":1,"role":"viewer"})")))
                .scale,
            kFinestScale);
  for (const char* bad : {"0.3", "2", "0", "-0.5", "0.0078125", "\"0.5\"", "null"}) {
    EXPECT_EQ(
        code(std::string(R"({"type":"hello","protocol":1,"role":"viewer","quantum":)") + bad + "}"),
        ErrorCode::bad_field)
        << bad;
    EXPECT_EQ(code(std::string(R"({"type":"viewport","quantum":)") + bad + "}"),
              ErrorCode::bad_field)
        << bad;
  }
  const auto vq = std::get<ViewportMsg>(std::get<ClientMessage>(
      ok(R"({"type":"viewport","x0":1,"y0":2,"x1":3,"y1":4,"quantum":0.5})")));
  EXPECT_EQ(vq.scale, 1);
  EXPECT_EQ(vq.view, (Viewport{1, 2, 3, 4}));
  const auto whole =
      std::get<ViewportMsg>(std::get<ClientMessage>(ok(R"({"type":"viewport","quantum":1})")));
  EXPECT_EQ(whole.scale, 0);
  EXPECT_FALSE(whole.view);
  EXPECT_FALSE(v.scale);
  // The compact forms clients write are read without a document, exactly as the general path
  // reads them; near misses go the general way and get its answers.
  auto tick = [&](const std::string& text) {
    return std::get<SnapshotAck>(std::get<ClientMessage>(ok(text))).tick;
  };
  EXPECT_EQ(tick(R"({"tick":42,"type":"ack"})"), 42u);
  EXPECT_EQ(tick(R"({"type":"ack","tick":0})"), 0u);
  EXPECT_EQ(tick(R"({"type":"ack","tick":9007199254740992})"), std::uint64_t{1} << 53);
  EXPECT_EQ(tick(R"({ "type": "ack", "tick": 7 })"), 7u);
  EXPECT_EQ(code(R"({"type":"ack","tick":9007199254740993})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"type":"ack","tick":007})"), ErrorCode::bad_json);
  EXPECT_EQ(code(R"({"type":"ack","tick":7}})"), ErrorCode::bad_json);
  EXPECT_EQ(code(R"({"type":"ack","tick":7,"more":1})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"tick":,"type":"ack"})"), ErrorCode::bad_json);
  EXPECT_EQ(code(R"({"type":"ack"})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"type":"ack","tick":-1})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"type":"ack","tick":1.5})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"type":"keyframe","now":true})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"type":"viewport","x0":1,"y0":2,"x1":3})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"type":"viewport","x0":5,"y0":2,"x1":3,"y1":4})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"type":"viewport","x0":1,"y0":2,"x1":3,"y1":1e300})"), ErrorCode::bad_field);
  EXPECT_EQ(code(R"({"type":"viewport","x0":"1","y0":2,"x1":3,"y1":4})"), ErrorCode::bad_field);
  for (const ClientMessage& m :
       {ClientMessage{SnapshotAck{7}}, ClientMessage{KeyframeRequest{}},
        ClientMessage{ViewportMsg{Viewport{0.1, 0.2, 10.3, 20.4}}}, ClientMessage{ViewportMsg{}},
        ClientMessage{ViewportMsg{Viewport{0, 0, 5, 5}, std::uint8_t{3}}},
        ClientMessage{ViewportMsg{std::nullopt, std::uint8_t{0}}}}) {
    const std::string text = std::visit([](const auto& x) { return encode(x); }, m);
    EXPECT_EQ(std::get<ClientMessage>(ok(text)), m) << text;
  }
  // An ack is written by hand: the same bytes as a JSON document's dump, read back alike.
  for (const std::uint64_t tick :
       {std::uint64_t{0}, std::uint64_t{7}, std::uint64_t{123456789}, std::uint64_t{1} << 53}) {
    const std::string text = encode(SnapshotAck{tick});
    EXPECT_EQ(text, (nlohmann::json{{"type", "ack"}, {"tick", tick}}.dump()));
    EXPECT_EQ(std::get<SnapshotAck>(std::get<ClientMessage>(ok(text))).tick, tick);
  }
}

}  // namespace
}  // namespace herd::protocol
