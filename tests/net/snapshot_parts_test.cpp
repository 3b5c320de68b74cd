// What of a snapshot each session is sent, over the real server: the obstacles in every welcome
// and in a snapshot only when they changed (and every kObstacleRefreshSeconds), and the inspect
// traces only to the sessions that inspect those agents, as JSON and as binary frames. Ticks are
// driven by hand (pause, step).
#include <set>
#include <span>

#include "net/server_fixture.hpp"
#include "protocol/snapshot_binary.hpp"

namespace herd::net {
namespace {

class SnapshotPartsTest : public ServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef&) override {
    config.rate_limit = config.rate_burst = 10000;  // a step at a time, hundreds of them
  }

  void send_ok(WsClient& c, std::uint32_t seq, const std::string& fields) {
    c.send(R"({"type":"command","seq":)" + std::to_string(seq) + "," + fields + "}");
    wait_for<protocol::Ack>(c, [&](const protocol::Ack& a) { return a.seq == seq; });
  }

  // `ticks` by hand (the world paused); returns the last tick once the commander has the ack.
  std::uint64_t step(WsClient& commander, int ticks = 1) {
    const std::uint32_t s = ++seq_;
    commander.send(R"({"type":"command","seq":)" + std::to_string(s) + R"(,"cmd":"step","ticks":)" +
                   std::to_string(ticks) + "}");
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

  // The snapshot of `tick` as the client got it, and its text (JSON), or its frame decoded as
  // the JSON snapshot it stands for (binary: every frame is a keyframe, nothing is acknowledged).
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
        if (std::get<protocol::BinaryFrame>(frame).header.tick != tick) continue;
        auto snap = protocol::to_snapshot(std::get<protocol::BinaryFrame>(frame));
        if (auto* err = std::get_if<std::string>(&snap)) {
          ADD_FAILURE() << *err;
          return {};
        }
        return {std::get<protocol::Snapshot>(std::move(snap)),
                std::string(std::get<protocol::BinaryFrame>(frame).header.side)};
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

  static std::set<std::uint32_t> traced(const protocol::Snapshot& s) {
    std::set<std::uint32_t> ids;
    for (const auto& t : s.inspect) ids.insert(t.id);
    return ids;
  }

  protocol::Welcome welcome_;
  std::uint32_t seq_ = 100, ping_ = 0;
};

TEST_F(SnapshotPartsTest, ObstaclesTravelInWelcomesAndInSnapshotsWhenTheyChange) {
  auto c = greeted(protocol::Role::commander, protocol::SnapshotFormat::json, &welcome_);
  EXPECT_TRUE(welcome_.obstacles.empty());
  send_ok(*c, 1, R"("cmd":"pause")");
  send_ok(*c, 2, R"("cmd":"add_obstacle","x":400,"y":300,"radius":30)");
  auto bin = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary, &welcome_);
  ASSERT_EQ(welcome_.obstacles.size(), 1u) << "a welcome carries every obstacle";
  EXPECT_EQ(welcome_.obstacles[0].r, 30);
  send_ok(*c, 3, R"("cmd":"add_obstacle","x":100,"y":100,"radius":10)");
  // The snapshot after the change carries them all, as JSON and in a binary frame's side section.
  std::uint64_t tick = step(*c);
  for (WsClient* client : {c.get(), bin.get()}) {
    const auto changed = snapshot_of(*client, tick).snapshot;
    ASSERT_TRUE(changed.obstacles);
    ASSERT_EQ(changed.obstacles->size(), 2u);
    EXPECT_EQ((*changed.obstacles)[1].r, 10);
  }
  // The next ones do not: the obstacles are as they were.
  for (int i = 0; i < 3; ++i) {
    tick = step(*c);
    const Got json = snapshot_of(*c, tick);
    EXPECT_FALSE(json.snapshot.obstacles);
    EXPECT_EQ(json.text.find(R"("obstacles")"), std::string::npos) << json.text;
    const Got binary = snapshot_of(*bin, tick);
    EXPECT_FALSE(binary.snapshot.obstacles);
    EXPECT_TRUE(binary.text.empty()) << "nothing to say: no side section, " << binary.text;
  }
  // A removal is a change: every obstacle left; the last one gone, an empty list.
  send_ok(*c, 4, R"("cmd":"remove_obstacle","id":1)");
  tick = step(*c);
  auto left = snapshot_of(*c, tick).snapshot;
  ASSERT_TRUE(left.obstacles);
  ASSERT_EQ(left.obstacles->size(), 1u);
  EXPECT_EQ((*left.obstacles)[0].id, 2u);
  send_ok(*c, 5, R"("cmd":"remove_obstacle","id":2)");
  tick = step(*c);
  left = snapshot_of(*c, tick).snapshot;
  ASSERT_TRUE(left.obstacles);
  EXPECT_TRUE(left.obstacles->empty());
  greeted(protocol::Role::viewer, protocol::SnapshotFormat::json, &welcome_);
  EXPECT_TRUE(welcome_.obstacles.empty());
}

// A client that skipped the snapshot that told a change (a slow reader's latest-wins lane drops
// snapshots) has the obstacles again within kObstacleRefreshSeconds: unchanged, they are carried
// once every that many seconds of snapshots, and no more often.
TEST_F(SnapshotPartsTest, UnchangedObstaclesAreCarriedAgainEveryFewSeconds) {
  auto c = greeted(protocol::Role::commander, protocol::SnapshotFormat::json, &welcome_);
  send_ok(*c, 1, R"("cmd":"pause")");
  send_ok(*c, 2, R"("cmd":"add_obstacle","x":400,"y":300,"radius":30)");
  auto v = greeted(protocol::Role::viewer, protocol::SnapshotFormat::json, &welcome_);
  const Got changed = snapshot_of(*v, step(*c));
  ASSERT_TRUE(changed.snapshot.obstacles);
  // Paused, each step is one snapshot: 30 a second here, so every 150th carries them again.
  const auto every =
      static_cast<std::uint64_t>(protocol::kObstacleRefreshSeconds * 30);  // the snapshot rate
  std::vector<std::uint64_t> carried;
  for (std::uint64_t i = 0; i < 2 * every + 20 && !HasFailure(); ++i) {
    const Got got = snapshot_of(*v, step(*c));
    if (got.snapshot.obstacles) {
      EXPECT_EQ(got.snapshot.obstacles->size(), 1u);
      carried.push_back(got.snapshot.serial);
    }
  }
  ASSERT_EQ(carried.size(), 2u);
  EXPECT_EQ(carried[0], changed.snapshot.serial + every);
  EXPECT_EQ(carried[1], carried[0] + every);
}

TEST_F(SnapshotPartsTest, InspectTracesGoOnlyToTheSessionsThatAskedForThem) {
  auto c = greeted(protocol::Role::commander, protocol::SnapshotFormat::json, &welcome_);
  sim::SpawnAgent a, b;
  a.position = {100, 300};
  a.target = sim::Vec2{700, 300};
  b.position = {700, 300};
  b.target = sim::Vec2{100, 300};
  c->send(command(1, sim::Spawn{0, 0, {a, b}}));
  wait_for<protocol::Ack>(*c, [](const protocol::Ack& ack) { return ack.seq == 1; });
  send_ok(*c, 2, R"("cmd":"pause")");
  auto json_1 = greeted(protocol::Role::viewer, protocol::SnapshotFormat::json, &welcome_);
  auto json_2 = greeted(protocol::Role::viewer, protocol::SnapshotFormat::json, &welcome_);
  auto json_none = greeted(protocol::Role::viewer, protocol::SnapshotFormat::json, &welcome_);
  auto bin_1 = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary, &welcome_);
  auto bin_none = greeted(protocol::Role::viewer, protocol::SnapshotFormat::binary, &welcome_);
  json_1->send(R"({"type":"inspect","agents":[1]})");
  json_2->send(R"({"type":"inspect","agents":[2,7]})");
  bin_1->send(R"({"type":"inspect","agents":[1]})");
  WsClient* all[] = {json_1.get(), json_2.get(), json_none.get(), bin_1.get(), bin_none.get()};
  sync(all);
  const std::uint64_t tick = step(*c, 2);

  const Got j1 = snapshot_of(*json_1, tick), j2 = snapshot_of(*json_2, tick),
            jn = snapshot_of(*json_none, tick);
  EXPECT_EQ(traced(j1.snapshot), std::set<std::uint32_t>{1});
  EXPECT_EQ(traced(j2.snapshot), std::set<std::uint32_t>{2}) << "7 is no agent: not traced";
  EXPECT_TRUE(jn.snapshot.inspect.empty());
  EXPECT_EQ(jn.text.find(R"("inspect")"), std::string::npos);
  // The same snapshot otherwise: an asker's text is the shared one with its traces at the end.
  const std::string shared = jn.text.substr(0, jn.text.size() - 1);
  EXPECT_EQ(j1.text.rfind(shared, 0), 0u);
  EXPECT_EQ(j2.text.rfind(shared, 0), 0u);
  EXPECT_EQ(j1.text.substr(shared.size(), 12), R"(,"inspect":[)");

  const Got b1 = snapshot_of(*bin_1, tick), bn = snapshot_of(*bin_none, tick);
  EXPECT_EQ(traced(b1.snapshot), std::set<std::uint32_t>{1});
  ASSERT_EQ(b1.snapshot.agents.size(), 2u);
  EXPECT_EQ(b1.snapshot.agents[0].behaviour, sim::BehaviourKind::arrive)
      << "the inspected agent's whole object, from the side section";
  EXPECT_EQ(b1.snapshot.agents[1].behaviour, sim::BehaviourKind::idle) << "agent 2: binary only";
  EXPECT_TRUE(bn.snapshot.inspect.empty());
  EXPECT_EQ(bn.text.find(R"("inspect")"), std::string::npos) << bn.text;
  EXPECT_EQ(bn.text.find(R"("behaviour")"), std::string::npos) << "no agent's whole object";

  // Asking for nothing stops the traces; when nobody asks, nothing is traced.
  json_1->send(R"({"type":"inspect","agents":[]})");
  json_2->send(R"({"type":"inspect","agents":[]})");
  bin_1->send(R"({"type":"inspect","agents":[]})");
  sync(all);
  const std::uint64_t later = step(*c);
  for (WsClient* client : all) EXPECT_TRUE(snapshot_of(*client, later).snapshot.inspect.empty());
}

}  // namespace
}  // namespace herd::net
