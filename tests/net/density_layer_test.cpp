// The density layer over the real server: a session that asks for it gets it in its snapshots
// (JSON, and binary frames' side sections) once every kDensitySeconds of snapshots, counted from
// the world's agents; a session that did not ask gets none; a bad request gets an error and
// changes nothing. The world is paused and stepped by hand, a snapshot a step.
#include <numeric>
#include <span>

#include "net/server_fixture.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::net {
namespace {

class DensityLayerTest : public ServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef&) override {
    config.rate_limit = config.rate_burst = 10000;  // a step at a time, dozens of them
  }

  void send_ok(WsClient& c, const std::string& fields) {
    const std::uint32_t seq = ++seq_;
    c.send(R"({"type":"command","seq":)" + std::to_string(seq) + "," + fields + "}");
    wait_for<protocol::Ack>(c, [&](const protocol::Ack& a) { return a.seq == seq; });
  }

  std::uint64_t step(WsClient& commander) {
    const std::uint32_t s = ++seq_;
    commander.send(R"({"type":"command","seq":)" + std::to_string(s) + R"(,"cmd":"step"})");
    return wait_for<protocol::Ack>(commander, [&](const protocol::Ack& a) { return a.seq == s; })
        .tick;
  }

  // What the clients sent has reached the server once the pongs to these pings are back.
  void sync(std::span<WsClient* const> clients) {
    const std::uint32_t id = ++ping_;
    for (WsClient* c : clients) c->send(R"({"type":"ping","id":)" + std::to_string(id) + "}");
    for (WsClient* c : clients)
      wait_for<protocol::Pong>(*c, [&](const protocol::Pong& p) { return p.id == id; });
  }

  // The snapshot of `tick` as the client got it (a binary frame decoded as the JSON snapshot it
  // stands for: every frame is a keyframe, nothing is acknowledged), and its text or side section.
  struct Got {
    protocol::Snapshot snapshot;
    std::string text;
  };
  Got snapshot_of(WsClient& c, std::uint64_t tick) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto data = c.receive(Millis(200));
      if (!data) continue;
      if (protocol::is_binary_snapshot(*data)) {
        auto frame = protocol::decode_binary(*data, {});
        if (auto* err = std::get_if<std::string>(&frame)) {
          ADD_FAILURE() << *err;
          return {};
        }
        const auto& f = std::get<protocol::BinaryFrame>(frame);
        if (f.header.tick != tick) continue;
        auto snap = protocol::to_snapshot(f);
        if (auto* err = std::get_if<std::string>(&snap)) {
          ADD_FAILURE() << *err;
          return {};
        }
        return {std::get<protocol::Snapshot>(std::move(snap)), std::string(f.header.side)};
      }
      auto decoded = protocol::decode_server(*data);
      if (!std::holds_alternative<ServerMessage>(decoded)) {
        ADD_FAILURE() << "server sent what its own codec refuses: " << *data;
        continue;
      }
      if (const auto* s = std::get_if<protocol::Snapshot>(&std::get<ServerMessage>(decoded));
          s && s->tick == tick)
        return {*s, *data};
    }
    ADD_FAILURE() << "no snapshot of tick " << tick;
    return {};
  }

  // Agents at known places of the 800 x 600 world (cells of 12.5: 64 x 48), two in one cell, small
  // enough not to touch (a collision would push them apart).
  void spawn_known(WsClient& commander) {
    send_ok(
        commander,
        R"("cmd":"spawn","agents":[{"x":100.5,"y":220.25,"radius":2},{"x":106,"y":222,"radius":2},)"
        R"({"x":10,"y":20,"radius":2},{"x":700,"y":500,"radius":2},{"x":400,"y":300,"radius":2}])");
  }

  static std::uint32_t total(const protocol::DensityLayer& d) {
    return std::accumulate(d.count.begin(), d.count.end(), 0u);
  }

  std::uint32_t seq_ = 0, ping_ = 0;
};

TEST_F(DensityLayerTest, AskersGetTheLayerTwiceASecondOfSnapshotsAndOthersNever) {
  auto commander = greeted(protocol::Role::commander);
  send_ok(*commander, R"("cmd":"pause")");
  spawn_known(*commander);
  auto json = greeted(protocol::Role::viewer);
  auto binary = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  auto plain_json = greeted(protocol::Role::viewer);
  auto plain_binary = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  json->send(protocol::encode(protocol::DensityRequest{true}));
  binary->send(R"({"type":"density","on":true})");
  WsClient* all[] = {json.get(), binary.get(), plain_json.get(), plain_binary.get()};
  sync(all);

  // The server's snapshot rate is 30: a layer every 15 snapshots, the first at once.
  const std::uint64_t period = 15;
  std::vector<std::uint64_t> layered;  // the steps whose snapshot carried the layer
  for (std::uint64_t n = 0; n < 2 * period + 2; ++n) {
    const std::uint64_t tick = step(*commander);
    const Got a = snapshot_of(*json, tick);
    const Got b = snapshot_of(*binary, tick);
    EXPECT_EQ(a.snapshot.density.has_value(), b.snapshot.density.has_value()) << "step " << n;
    for (WsClient* plain : {plain_json.get(), plain_binary.get()}) {
      const Got p = snapshot_of(*plain, tick);
      EXPECT_FALSE(p.snapshot.density) << "step " << n;
      EXPECT_EQ(p.text.find(R"("density":{)"), std::string::npos) << p.text;
    }
    if (!a.snapshot.density) continue;
    layered.push_back(n);
    for (const Got* got : {&a, &b}) {
      const protocol::DensityLayer& d = *got->snapshot.density;
      EXPECT_EQ(d.grid, (protocol::DensityGrid{12.5, 64, 48}));
      EXPECT_EQ(total(d), 5u) << "every agent counted once";
      EXPECT_EQ(d.count[17 * 64 + 8], 2u);   // (100.5, 220.25) and (106, 222)
      EXPECT_EQ(d.count[1 * 64 + 0], 1u);    // (10, 20)
      EXPECT_EQ(d.count[40 * 64 + 56], 1u);  // (700, 500)
      EXPECT_EQ(d.count[24 * 64 + 32], 1u);  // (400, 300)
      EXPECT_EQ(d.speed_max, 0) << "standing agents";
    }
    // JSON: after the snapshot's members; the rest of the text is every session's.
    EXPECT_NE(a.text.find(R"(,"density":{"cell":12.5,"cols":64,"rows":48,"count":[)"),
              std::string::npos)
        << a.text;
  }
  EXPECT_EQ(layered, (std::vector<std::uint64_t>{0, period, 2 * period}));

  // Off: no more layers, however many snapshots go by.
  json->send(R"({"type":"density","on":false})");
  binary->send(R"({"type":"density","on":false})");
  sync(all);
  for (std::uint64_t n = 0; n < period + 2; ++n) {
    const std::uint64_t tick = step(*commander);
    EXPECT_FALSE(snapshot_of(*json, tick).snapshot.density) << "step " << n;
    EXPECT_FALSE(snapshot_of(*binary, tick).snapshot.density) << "step " << n;
  }
}

// The layer follows the world: agents that move change cells and the mean speed, a session that
// inspects agents gets its traces and the layer together, and a new world's first snapshot has a
// layer of its own at once.
TEST_F(DensityLayerTest, TheLayerFollowsTheWorldAndGoesWithAnInspectorsTraces) {
  auto commander = greeted(protocol::Role::commander);
  send_ok(*commander, R"("cmd":"pause")");
  spawn_known(*commander);
  send_ok(*commander, R"("cmd":"set_target","agents":[1],"target":{"x":790,"y":590})");
  commander->send(R"({"type":"density","on":true})");
  commander->send(R"({"type":"inspect","agents":[1]})");
  auto binary = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary);
  binary->send(R"({"type":"density","on":true})");
  binary->send(R"({"type":"inspect","agents":[2]})");
  WsClient* both[] = {commander.get(), binary.get()};
  sync(both);
  std::uint64_t tick = step(*commander);
  for (WsClient* c : both) {
    const Got got = snapshot_of(*c, tick);
    ASSERT_TRUE(got.snapshot.density);
    EXPECT_EQ(got.snapshot.inspect.size(), 1u) << got.text;
    EXPECT_EQ(total(*got.snapshot.density), 5u);
    EXPECT_GT(got.snapshot.density->speed_max, 0) << "agent 1 moves";
    // Agent 1 moves in the cell it shares with agent 2; the others stand alone: that cell's mean
    // speed is the largest.
    EXPECT_EQ(got.snapshot.density->speed[17 * 64 + 8], 255);
    EXPECT_EQ(got.snapshot.density->speed[24 * 64 + 32], 0);
  }
  // A new world: its first snapshot has the layer, whenever the last one was.
  send_ok(*commander, R"("cmd":"reset")");
  const auto first = wait_for<protocol::Snapshot>(*commander);
  ASSERT_TRUE(first.density);
  EXPECT_EQ(total(*first.density), 0u) << "the test world starts empty";
}

TEST_F(DensityLayerTest, ABadRequestGetsAnErrorAndChangesNothing) {
  auto early = connect();
  early->send(R"({"type":"density","on":true})");
  EXPECT_EQ(wait_for<protocol::Error>(*early).code, protocol::ErrorCode::hello_required);
  auto commander = greeted(protocol::Role::commander);
  send_ok(*commander, R"("cmd":"pause")");
  spawn_known(*commander);
  auto viewer = greeted(protocol::Role::viewer);
  for (const char* bad : {R"({"type":"density"})", R"({"type":"density","on":"yes"})",
                          R"({"type":"density","on":true,"rate":5})"}) {
    viewer->send(bad);
    const auto e = wait_for<protocol::Error>(*viewer);
    EXPECT_EQ(e.code, protocol::ErrorCode::bad_field) << bad;
    EXPECT_FALSE(e.seq);
  }
  WsClient* one[] = {viewer.get()};
  sync(one);
  for (int n = 0; n < 3; ++n) {
    const std::uint64_t tick = step(*commander);
    EXPECT_FALSE(snapshot_of(*viewer, tick).snapshot.density);
  }
}

}  // namespace
}  // namespace herd::net
