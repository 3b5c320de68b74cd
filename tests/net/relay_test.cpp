// Relays: real servers in process, a relay (herd-server in relay mode) in front of them, and real
// WebSocket clients on both. Nothing sleeps: every wait is for a message, bounded by a timeout.
#include <condition_variable>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>

#include "common/fake_ws_server.hpp"
#include "net/relay_world.hpp"
#include "net/server_fixture.hpp"
#include "net/upstream_link.hpp"

namespace herd::net {
namespace {

TEST(SnapshotTick, ReadsTheTickFromTheTextOfASnapshotAndOfNothingElse) {
  EXPECT_EQ(protocol::snapshot_tick(R"({"type":"snapshot","tick":1203,"serial":401})"), 1203u);
  EXPECT_EQ(protocol::snapshot_tick(R"({"type":"snapshot","tick":0,"serial":1})"), 0u);
  for (const char* other : {R"({"type":"welcome","tick":5,)", R"({"type":"snapshot","tick":12)",
                            R"({"type":"snapshot","tick":-1,)", R"({"tick":3,"type":"snapshot",)",
                            R"({"type":"snapshot","tick":99999999999999999999999,)", ""})
    EXPECT_FALSE(protocol::snapshot_tick(other)) << other;
}

// A relay reads at most what a world of the welcome's max_agents can send: a snapshot of that
// many agents at their widest fits, and a default world's cap is tens of megabytes, not hundreds.
TEST(RelayCap, TheLargestUpstreamMessageIsWhatAWorldCanHold) {
  protocol::Snapshot s;
  s.tick = s.serial = 123456789;
  s.time = 1e6;
  for (std::uint32_t i = 0; i < 20000; ++i) {
    protocol::AgentState a;
    a.id = 4000000000u + i;
    a.x = a.y = -999999.999;
    a.vx = a.vy = -9999.999;
    a.r = 99.999;
    a.group = 255;
    a.target = sim::Vec2{-999999.999, -999999.999};
    a.behaviour = sim::BehaviourKind::pursue;
    a.subject = 4000000000u;
    a.history.assign(20, sim::TileCoord{1023, 1023});
    // Orders queued beyond what a snapshot shows, and every optional field off its default.
    a.waypoints.assign(protocol::kMaxWaypointsPerAgent, sim::Vec2{-999999.999, -999999.999});
    a.priority = 255;
    a.layer = a.mask = 4000000000u;
    a.team = 63;
    a.sight = 99999.999;
    s.agents.push_back(a);
  }
  s.obstacles.emplace();
  for (std::uint32_t i = 0; i < 10000; ++i) s.obstacles->push_back({i, -999999.999, 5.5, 99.5});
  // Every wall a world may hold, their points spread over them as widely as the limits allow.
  s.walls.emplace();
  const std::size_t per_wall = sim::WallLimits::kMaxTotalPoints / sim::WallLimits::kMaxWalls;
  for (std::uint32_t i = 0; i < sim::WallLimits::kMaxWalls; ++i)
    s.walls->push_back({4000000000u + i,
                        std::vector<sim::Vec2>(per_wall, sim::Vec2{-999999.999, -999999.999}),
                        false});
  // Every source and exit a world may hold, at their widest.
  s.sources.emplace();
  s.exits.emplace();
  for (std::uint32_t i = 0; i < sim::SourceLimits::kMaxSources; ++i)
    s.sources->push_back({4000000000u + i,
                          {-999999.999, -999999.999},
                          {-999999.999, -999999.999},
                          1000,
                          1000000,
                          1000000,
                          1000000});
  for (std::uint32_t i = 0; i < sim::SourceLimits::kMaxExits; ++i)
    s.exits->push_back({4000000000u + i,
                        {-999999.999, -999999.999},
                        {-999999.999, -999999.999},
                        std::numeric_limits<std::uint64_t>::max()});
  const std::string encoded = protocol::encode(s);
  const std::size_t text = encoded.size();
  const std::size_t cap = max_snapshot_bytes(20000);
  std::fprintf(stderr,
               "a 20,000-agent snapshot at its widest: %zu bytes; cap for 20,000 agents: %zu, for "
               "1,000,000: %zu; before the welcome: %zu; values for 20,000 agents: %zu (the "
               "snapshot has %zu)\n",
               text, cap, max_snapshot_bytes(1'000'000), max_welcome_bytes(),
               max_snapshot_values(20000), json_values(encoded));
  EXPECT_GT(cap, text);
  EXPECT_GT(max_snapshot_values(20000), json_values(encoded));
  EXPECT_LT(max_snapshot_values(20000), std::size_t{8} << 20) << "far fewer than 3 bytes a value";
  EXPECT_EQ(json_values(R"({"a":[1,2,{"b":"x,{["}],"c":"\\\"["})"), 6u);
  EXPECT_LT(cap, std::size_t{64} << 20);
  EXPECT_EQ(max_snapshot_bytes(0), cap);  // 0: the default world's limit
  EXPECT_EQ(max_snapshot_bytes(4'000'000'000u), max_snapshot_bytes(1'000'000));
  EXPECT_LT(max_welcome_bytes(), std::size_t{4} << 20);
}

class RelayTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    relay_port_ = start_relay(relay_, relay_thread_, port_, relay_token());
  }
  void TearDown() override {
    for (auto* r : {&relay2_, &relay_}) {
      if (!*r) continue;
      (*r)->stop();
    }
    if (relay2_thread_.joinable()) relay2_thread_.join();
    relay_thread_.join();
    if (HasFailure())  // the server's and the relays' logs, in the order written
      for (const auto& line : log_lines()) std::fprintf(stderr, "log: %s\n", line.c_str());
    ServerTest::TearDown();
  }

  // The token the relay presents upstream and asks of its own commanders (none: an open relay).
  virtual std::string relay_token() const { return {}; }

  // The snapshots the relays' links ask for.
  virtual protocol::SnapshotFormat link_format() const {
    return protocol::SnapshotFormat::automatic;
  }

  std::uint16_t start_relay(std::unique_ptr<Server>& relay, std::thread& thread,
                            std::uint16_t upstream, const std::string& token = {}) {
    ServerConfig config;
    config.sim_threads = 2;  // a relay's encoding pool, as herd-server gives one on 2 cores
    config.command_token = token;
    config.address = "127.0.0.1";
    config.port = 0;
    config.web_root = web_root_.string();
    config.log = [this](std::string_view line) {
      std::lock_guard lock(log_mutex_);
      log_.emplace_back(line);
    };
    auto url = RelayWorld::parse_url("ws://127.0.0.1:" + std::to_string(upstream) + "/ws");
    relay = std::make_unique<Server>(
        config, std::make_unique<RelayWorld>(std::get<UpstreamUrl>(std::move(url)),
                                             RelayWorld::Link{true, link_format()}));
    EXPECT_EQ(relay->world(), nullptr) << "a relay steps no world of its own";
    const std::uint16_t port = relay->start();
    thread = std::thread([&relay] { relay->run(); });
    return port;
  }

  std::unique_ptr<WsClient> at(std::uint16_t port, protocol::Role role, std::string token = {},
                               protocol::SnapshotFormat format = protocol::SnapshotFormat::json,
                               std::uint8_t scale = protocol::kFinestScale) {
    auto c = std::make_unique<WsClient>();
    c->connect("127.0.0.1", port);
    protocol::Hello h{1, role, "test", std::move(token)};
    h.format = format;
    h.scale = scale;
    c->send(protocol::encode(h));
    return c;
  }

  // The next JSON snapshots' texts by tick, until `count` ticks are held.
  std::map<std::uint64_t, std::string> snapshot_texts(WsClient& c, std::size_t count) {
    std::map<std::uint64_t, std::string> out;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
      auto text = c.receive(Millis(200));
      if (!text || protocol::is_binary_snapshot(*text)) continue;
      auto decoded = protocol::decode_server(*text);
      if (!std::holds_alternative<ServerMessage>(decoded)) continue;
      if (const auto* s = std::get_if<protocol::Snapshot>(&std::get<ServerMessage>(decoded)))
        out[s->tick] = *text;
    }
    EXPECT_EQ(out.size(), count) << "timed out";
    return out;
  }

  std::vector<std::uint32_t> spawn(WsClient& commander, std::uint32_t seq, int n) {
    sim::Spawn s;
    s.count = static_cast<std::uint32_t>(n);
    commander.send(command(seq, s));
    const auto ack =
        wait_for<protocol::Ack>(commander, [seq](const auto& a) { return a.seq == seq; });
    return ack.agents.value_or(std::vector<std::uint32_t>{});
  }

  void restart_upstream(const std::string& token = {}) {
    ServerConfig config;
    config.address = "127.0.0.1";
    config.port = port_;
    config.web_root = web_root_.string();
    config.tick_rate = 120;
    config.snapshot_rate = 30;
    config.command_token = token;
    sim::WorldDef def;
    def.dt = 1.0 / 120;
    server_ = std::make_unique<Server>(config, sim::World(def));
    server_->start();
    thread_ = std::thread([this] { server_->run(); });
  }

  std::unique_ptr<Server> relay_, relay2_;
  std::thread relay_thread_, relay2_thread_;
  std::uint16_t relay_port_ = 0;
};

TEST_F(RelayTest, ViewersOnARelaySeeTheServersSnapshotsAsTheyCame) {
  auto commander = greeted(protocol::Role::commander);
  ASSERT_EQ(spawn(*commander, 1, 20).size(), 20u);
  auto direct = at(port_, protocol::Role::viewer);
  auto relayed = at(relay_port_, protocol::Role::viewer);
  const auto w = wait_for<protocol::Welcome>(*relayed);
  EXPECT_EQ(w.upstream, "connected");
  EXPECT_EQ(w.scenario, "test-world");
  EXPECT_EQ(w.tick_rate, 120);
  EXPECT_EQ(w.snapshot_rate, 30);
  EXPECT_EQ(w.world.width, 800);
  EXPECT_EQ(w.scenarios, (std::vector<std::string>{"other", "test-world"}));
  EXPECT_EQ(wait_for<protocol::Welcome>(*direct).upstream,
            "");  // a server says nothing of upstreams

  const auto a = snapshot_texts(*direct, 12);
  const auto b = snapshot_texts(*relayed, 12);
  std::size_t same_tick = 0;
  for (const auto& [tick, text] : b) {
    const auto it = a.find(tick);
    if (it == a.end()) continue;
    ++same_tick;
    EXPECT_EQ(text, it->second) << "tick "
                                << tick;  // byte for byte: the same agents, the same serial
  }
  EXPECT_GE(same_tick, 6u);
}

TEST_F(RelayTest, TheServerPaysOneObserverPerRelayWhateverItsViewers) {
  std::vector<std::unique_ptr<WsClient>> viewers;
  for (int i = 0; i < 6; ++i) {
    viewers.push_back(at(relay_port_, protocol::Role::viewer));
    wait_for<protocol::Welcome>(*viewers.back());
  }
  for (auto& v : viewers) snapshot_texts(*v, 1);
  // The relay's one link (a commander: an open relay in front of an open server).
  EXPECT_EQ(metric("herd_sessions{role=\"viewer\"}"), 0);
  EXPECT_EQ(metric("herd_sessions{role=\"commander\"}"), 1);
  const auto relay_metrics = client::http_request("127.0.0.1", relay_port_, "/metrics").body;
  EXPECT_NE(relay_metrics.find("\nherd_sessions{role=\"viewer\"} 6\n"), std::string::npos);
  EXPECT_NE(relay_metrics.find("\nherd_relay_upstream_connected 1\n"), std::string::npos);
  const auto health = client::http_request("127.0.0.1", relay_port_, "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_NE(health.body.find("\"upstream\":\"connected\""), std::string::npos) << health.body;
}

TEST_F(RelayTest, ACommandThroughARelayIsAckedAndSeenByTheRelaysViewers) {
  auto commander = at(relay_port_, protocol::Role::commander);
  EXPECT_EQ(wait_for<protocol::Welcome>(*commander).role, protocol::Role::commander);
  const auto ids = spawn(*commander, 7, 3);
  ASSERT_EQ(ids.size(), 3u);
  // A bad command is answered by the relay's own checks, with its seq, and goes nowhere.
  commander->send(R"({"type":"command","seq":8,"cmd":"spawn","count":3,"nonsense":1})");
  const auto refused = wait_for<protocol::Error>(*commander);
  EXPECT_EQ(refused.seq, 8u);
  EXPECT_EQ(refused.code, protocol::ErrorCode::bad_field);
  // The world's answer comes back to the one who asked.
  commander->send(command(9, sim::Remove{{false, {999}}}));
  const auto unknown = wait_for<protocol::Error>(*commander);
  EXPECT_EQ(unknown.seq, 9u);
  EXPECT_EQ(unknown.code, protocol::ErrorCode::unknown_agent);
  auto viewer = at(relay_port_, protocol::Role::viewer);
  const auto seen =
      wait_for<protocol::Snapshot>(*viewer, [](const auto& s) { return s.agents.size() == 3; });
  EXPECT_EQ(seen.agents.front().id, ids.front());
  // On the server: one session, the relay's link, which carried the commands.
  EXPECT_EQ(metric("herd_sessions{role=\"commander\"}"), 1);
  EXPECT_EQ(metric("herd_sessions{role=\"viewer\"}"), 0);
  EXPECT_EQ(metric("herd_commands_total{result=\"accepted\"}"), 1);
}

// `sessions` and `kick` on a relay are the relay's own: its clients are listed and kicked there,
// and nothing of either reaches its upstream, whose sessions (the relay's link among them) stay.
TEST_F(RelayTest, ARelayListsAndKicksItsOwnClientsOnly) {
  auto direct = greeted(protocol::Role::viewer);
  auto commander = at(relay_port_, protocol::Role::commander);
  const auto own = wait_for<protocol::Welcome>(*commander);
  ASSERT_EQ(own.role, protocol::Role::commander);
  auto viewer = at(relay_port_, protocol::Role::viewer);
  const auto theirs = wait_for<protocol::Welcome>(*viewer);
  commander->send(protocol::encode(protocol::SessionsRequest{1}));
  const auto list =
      wait_for<protocol::SessionList>(*commander, [](const auto& l) { return l.seq == 1; });
  ASSERT_EQ(list.sessions.size(), 2u) << "the relay's two clients, not the server's";
  EXPECT_EQ(list.sessions[0].id, own.session);
  EXPECT_TRUE(list.sessions[0].you);
  EXPECT_EQ(list.sessions[1].id, theirs.session);
  EXPECT_EQ(list.sessions[1].role, protocol::Role::viewer);

  commander->send(protocol::encode(protocol::ControlMsg{2, protocol::Kick{999}}));
  EXPECT_EQ(wait_for<protocol::Error>(*commander, [](const auto& e) { return e.seq == 2; }).code,
            protocol::ErrorCode::unknown_session);
  commander->send(protocol::encode(protocol::ControlMsg{3, protocol::Kick{theirs.session}}));
  wait_for<protocol::Ack>(*commander, [](const auto& a) { return a.seq == 3; });
  EXPECT_EQ(wait_closed(*viewer), protocol::kKickedCloseCode);
  // The server's sessions are untouched: its direct viewer and the relay's link.
  wait_for<protocol::Snapshot>(*direct);
  EXPECT_EQ(metric("herd_sessions{role=\"viewer\"}"), 1);
  EXPECT_EQ(metric("herd_sessions{role=\"commander\"}"), 1);
  wait_for<protocol::Snapshot>(*commander);
}

TEST_F(RelayTest, BinaryViewersOnARelayGetTheSameAgentsAsOnTheServer) {
  auto commander = greeted(protocol::Role::commander);
  ASSERT_EQ(spawn(*commander, 1, 30).size(), 30u);
  auto relayed = at(relay_port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  auto json = at(relay_port_, protocol::Role::viewer);
  wait_for<protocol::Welcome>(*json);
  const auto texts = snapshot_texts(*json, 8);
  protocol::BinaryClient decoder;
  std::size_t compared = 0, frames = 0;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (compared < 5 && std::chrono::steady_clock::now() < deadline) {
    auto frame = relayed->receive(Millis(200));
    if (!frame || !protocol::is_binary_snapshot(*frame)) continue;
    auto got = decoder.receive(*frame);
    ASSERT_TRUE(got.frame) << got.error;
    ++frames;
    relayed->send(protocol::encode(protocol::SnapshotAck{*got.ack}));
    const auto it = texts.find(got.frame->header.tick);
    if (it == texts.end()) continue;
    const auto snap =
        std::get<protocol::Snapshot>(std::get<ServerMessage>(protocol::decode_server(it->second)));
    ASSERT_EQ(got.frame->agents.size(), snap.agents.size());
    for (std::size_t i = 0; i < snap.agents.size(); ++i) {
      const auto a = protocol::dequantise(got.frame->agents[i]);
      EXPECT_EQ(a.id, snap.agents[i].id);
      EXPECT_NEAR(a.x, snap.agents[i].x, 1.0 / 128 + 0.0005);
      EXPECT_NEAR(a.y, snap.agents[i].y, 1.0 / 128 + 0.0005);
    }
    ++compared;
  }
  EXPECT_GE(compared, 1u);
  EXPECT_GE(frames, 5u);
}

// Each of the relay's clients gets the traces of the agents it inspects and no other's (its link
// asks the server for all of them); the obstacles reach its clients as the server sends them:
// in welcomes, and in the snapshots after a change.
TEST_F(RelayTest, RelayClientsGetTheirOwnTracesAndTheObstaclesWhenTheyChange) {
  auto commander = greeted(protocol::Role::commander);
  ASSERT_EQ(spawn(*commander, 1, 3).size(), 3u);
  auto asker = at(relay_port_, protocol::Role::viewer);
  auto binary_asker = at(relay_port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  auto other = at(relay_port_, protocol::Role::viewer);
  for (auto* c : {asker.get(), binary_asker.get(), other.get()}) {
    EXPECT_TRUE(wait_for<protocol::Welcome>(*c).obstacles.empty());
  }
  asker->send(R"({"type":"inspect","agents":[1]})");
  binary_asker->send(R"({"type":"inspect","agents":[2]})");
  const auto traced = wait_for<protocol::Snapshot>(
      *asker, [](const protocol::Snapshot& s) { return !s.inspect.empty(); });
  ASSERT_EQ(traced.inspect.size(), 1u);
  EXPECT_EQ(traced.inspect[0].id, 1u);
  protocol::BinaryClient decoder;
  bool binary_traced = false;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!binary_traced && std::chrono::steady_clock::now() < deadline) {
    auto frame = binary_asker->receive(Millis(200));
    if (!frame || !protocol::is_binary_snapshot(*frame)) continue;
    auto got = decoder.receive(*frame);
    ASSERT_TRUE(got.frame) << got.error;
    auto snap = protocol::to_snapshot(*got.frame);
    ASSERT_TRUE(std::holds_alternative<protocol::Snapshot>(snap));
    const auto& inspect = std::get<protocol::Snapshot>(snap).inspect;
    if (inspect.empty()) continue;
    ASSERT_EQ(inspect.size(), 1u);
    EXPECT_EQ(inspect[0].id, 2u);
    binary_traced = true;
  }
  EXPECT_TRUE(binary_traced);
  // The client that asked for nothing gets none, before and after.
  for (const auto& [tick, text] : snapshot_texts(*other, 6))
    EXPECT_EQ(text.find(R"("inspect")"), std::string::npos) << text;

  commander->send(R"({"type":"command","seq":2,"cmd":"add_obstacle","x":400,"y":300,"radius":30})");
  wait_for<protocol::Ack>(*commander, [](const protocol::Ack& a) { return a.seq == 2; });
  const auto changed = wait_for<protocol::Snapshot>(
      *other, [](const protocol::Snapshot& s) { return s.obstacles.has_value(); });
  ASSERT_EQ(changed.obstacles->size(), 1u);
  // Unchanged, not sent again (but for the refresh every few seconds, which one may be).
  int carried = 0;
  for (const auto& [tick, text] : snapshot_texts(*other, 6))
    carried += text.find(R"("obstacles")") != std::string::npos;
  EXPECT_LE(carried, 1);
  auto late = at(relay_port_, protocol::Role::viewer);
  const auto w = wait_for<protocol::Welcome>(*late);
  ASSERT_EQ(w.obstacles.size(), 1u) << "the relay's welcome holds the obstacles it was last told";
  EXPECT_EQ(w.obstacles[0].r, 30);
}

// Walls reach a relay's clients as the server sends them: in the snapshot after a change (JSON,
// and binary side sections, re-encoded by the relay), and in the welcome of a client that comes
// later, which holds those the relay was last told.
TEST_F(RelayTest, RelayClientsGetTheWallsWhenTheyChangeAndInLaterWelcomes) {
  auto commander = greeted(protocol::Role::commander);
  auto json_viewer = at(relay_port_, protocol::Role::viewer);
  auto binary_viewer =
      at(relay_port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  EXPECT_TRUE(wait_for<protocol::Welcome>(*json_viewer).walls.empty());
  EXPECT_TRUE(wait_for<protocol::Welcome>(*binary_viewer).walls.empty());
  commander->send(
      R"({"type":"command","seq":2,"cmd":"add_wall","points":[{"x":100,"y":100},{"x":300,"y":120},{"x":200,"y":260}],"closed":true})");
  const auto ack =
      wait_for<protocol::Ack>(*commander, [](const protocol::Ack& a) { return a.seq == 2; });
  ASSERT_EQ(ack.wall, std::optional<std::uint32_t>{1});
  const std::vector<protocol::WallState> expected{{1, {{100, 100}, {300, 120}, {200, 260}}, true}};
  const auto changed = wait_for<protocol::Snapshot>(
      *json_viewer, [](const protocol::Snapshot& s) { return s.walls.has_value(); });
  EXPECT_EQ(*changed.walls, expected);
  protocol::BinaryClient decoder;
  bool binary_seen = false;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!binary_seen && std::chrono::steady_clock::now() < deadline) {
    auto frame = binary_viewer->receive(Millis(200));
    if (!frame || !protocol::is_binary_snapshot(*frame)) continue;
    auto got = decoder.receive(*frame);
    ASSERT_TRUE(got.frame) << got.error;
    if (got.ack) binary_viewer->send(protocol::encode(protocol::SnapshotAck{*got.ack}));
    auto snap = protocol::to_snapshot(*got.frame);
    ASSERT_TRUE(std::holds_alternative<protocol::Snapshot>(snap));
    const auto& walls = std::get<protocol::Snapshot>(snap).walls;
    if (!walls) continue;
    EXPECT_EQ(*walls, expected);
    binary_seen = true;
  }
  EXPECT_TRUE(binary_seen) << "no binary frame from the relay carried the walls";
  auto late = at(relay_port_, protocol::Role::viewer);
  EXPECT_EQ(wait_for<protocol::Welcome>(*late).walls, expected)
      << "the relay's welcome holds the walls it was last told";
}

// A relay makes the density layer itself, from the snapshots it relays, for its own clients that
// ask (JSON and binary), at most every kDensitySeconds of snapshots; its other clients get none,
// and its link asks the server for nothing.
TEST_F(RelayTest, RelayClientsThatAskGetTheDensityLayer) {
  auto commander = greeted(protocol::Role::commander);
  sim::Spawn known;
  for (const sim::Vec2 p : {sim::Vec2{100.5, 220.25}, {106, 222}, {700, 500}}) {
    sim::SpawnAgent a;
    a.position = p;
    a.radius = 2;  // two in one cell that do not touch
    known.agents.push_back(a);
  }
  commander->send(command(2, known));
  wait_for<protocol::Ack>(*commander, [](const protocol::Ack& a) { return a.seq == 2; });
  auto asker = at(relay_port_, protocol::Role::viewer);
  auto binary_asker = at(relay_port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  auto other = at(relay_port_, protocol::Role::viewer);
  for (auto* c : {asker.get(), binary_asker.get(), other.get()}) wait_for<protocol::Welcome>(*c);
  asker->send(R"({"type":"density","on":true})");
  binary_asker->send(R"({"type":"density","on":true})");
  const auto check = [](const protocol::DensityLayer& d) {
    EXPECT_EQ(d.grid, (protocol::DensityGrid{12.5, 64, 48}));
    EXPECT_EQ(std::accumulate(d.count.begin(), d.count.end(), 0u), 3u);
    EXPECT_EQ(d.count[17 * 64 + 8], 2u);
    EXPECT_EQ(d.count[40 * 64 + 56], 1u);
  };
  // Two layers apart by at least half a second of the server's snapshots (30 a second).
  std::vector<std::uint64_t> serials;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (serials.size() < 2 && std::chrono::steady_clock::now() < deadline) {
    const auto s = wait_for<protocol::Snapshot>(*asker);
    if (!s.density) continue;
    check(*s.density);
    serials.push_back(s.serial);
  }
  ASSERT_EQ(serials.size(), 2u);
  EXPECT_GE(serials[1] - serials[0], 15u);
  protocol::BinaryClient decoder;
  bool binary_layer = false;
  while (!binary_layer && std::chrono::steady_clock::now() < deadline + kWait) {
    auto frame = binary_asker->receive(Millis(200));
    if (!frame || !protocol::is_binary_snapshot(*frame)) continue;
    auto got = decoder.receive(*frame);
    ASSERT_TRUE(got.frame) << got.error;
    auto snap = protocol::to_snapshot(*got.frame);
    ASSERT_TRUE(std::holds_alternative<protocol::Snapshot>(snap));
    const auto& s = std::get<protocol::Snapshot>(snap);
    if (!s.density) continue;
    check(*s.density);
    binary_layer = true;
  }
  EXPECT_TRUE(binary_layer);
  for (const auto& [tick, text] : snapshot_texts(*other, 20))
    EXPECT_EQ(text.find(R"("density":{)"), std::string::npos) << text;
}

class RelayWithTokenTest : public RelayTest {
  void configure(ServerConfig& c, sim::WorldDef&) override { c.command_token = "s3cret"; }
  std::string relay_token() const override { return "s3cret"; }
};

// The relay asks its commanders for the token it presents upstream, as a server does; a wrong one
// or none watches, and nothing of either reaches the server, which sees the relay's link alone.
TEST_F(RelayWithTokenTest, TheRelayAsksItsCommandersForTheTokenItPresentsUpstream) {
  auto wrong = at(relay_port_, protocol::Role::commander, "guess");
  const auto why = wait_for<protocol::Error>(*wrong);
  EXPECT_EQ(why.code, protocol::ErrorCode::unauthorized);
  EXPECT_EQ(wait_for<protocol::Welcome>(*wrong).role, protocol::Role::viewer);
  sim::Spawn s;
  s.count = 1;
  wrong->send(command(3, s));
  const auto forbidden = wait_for<protocol::Error>(*wrong);
  EXPECT_EQ(forbidden.seq, 3u);
  EXPECT_EQ(forbidden.code, protocol::ErrorCode::forbidden);
  auto none = at(relay_port_, protocol::Role::commander);
  EXPECT_EQ(wait_for<protocol::Error>(*none).code, protocol::ErrorCode::unauthorized);
  EXPECT_EQ(wait_for<protocol::Welcome>(*none).role, protocol::Role::viewer);

  auto right = at(relay_port_, protocol::Role::commander, "s3cret");
  EXPECT_EQ(wait_for<protocol::Welcome>(*right).role, protocol::Role::commander);
  EXPECT_EQ(spawn(*right, 4, 2).size(), 2u);
  EXPECT_EQ(metric("herd_sessions{role=\"commander\"}"), 1);
  EXPECT_EQ(metric("herd_sessions{role=\"viewer\"}"), 0);
}

// A relay whose token the server refuses commands nothing: its commanders watch, told why.
class RelayWithAWrongTokenTest : public RelayWithTokenTest {
  std::string relay_token() const override { return "not-the-servers"; }
};

TEST_F(RelayWithAWrongTokenTest, ItsCommandersAreWelcomedAsViewers) {
  auto c = at(relay_port_, protocol::Role::commander, "not-the-servers");
  const auto why = wait_for<protocol::Error>(*c);
  EXPECT_EQ(why.code, protocol::ErrorCode::unauthorized);
  EXPECT_NE(why.message.find("did not let this relay command"), std::string::npos) << why.message;
  EXPECT_EQ(wait_for<protocol::Welcome>(*c).role, protocol::Role::viewer);
  EXPECT_EQ(metric("herd_sessions{role=\"viewer\"}"), 1);  // the relay's link, refused
}

// Commanders of one relay share its link: their seqs may be the same, and each gets its own
// answer with its own seq (the link numbers commands itself).
TEST_F(RelayTest, TwoCommandersWithTheSameSeqEachGetTheirOwnAnswer) {
  auto a = at(relay_port_, protocol::Role::commander);
  auto b = at(relay_port_, protocol::Role::commander);
  EXPECT_EQ(wait_for<protocol::Welcome>(*a).role, protocol::Role::commander);
  EXPECT_EQ(wait_for<protocol::Welcome>(*b).role, protocol::Role::commander);
  sim::Spawn two, three;
  two.count = 2;
  three.count = 3;
  a->send(command(1, two));
  b->send(command(1, three));
  const auto ack_a = wait_for<protocol::Ack>(*a, [](const auto& m) { return m.seq == 1; });
  const auto ack_b = wait_for<protocol::Ack>(*b, [](const auto& m) { return m.seq == 1; });
  EXPECT_EQ(ack_a.agents.value_or(std::vector<std::uint32_t>{}).size(), 2u);
  EXPECT_EQ(ack_b.agents.value_or(std::vector<std::uint32_t>{}).size(), 3u);
  // An error comes back the same way, to the one who asked, with its seq.
  b->send(command(1, sim::Remove{{false, {999}}}));
  const auto refused =
      wait_for<protocol::Error>(*b, [](const auto& m) { return m.seq.has_value(); });
  EXPECT_EQ(refused.seq, 1u);
  EXPECT_EQ(refused.code, protocol::ErrorCode::unknown_agent);
  EXPECT_EQ(metric("herd_sessions{role=\"commander\"}"), 1);
}

TEST_F(RelayTest, WhenTheServerRestartsTheRelaysViewersStayAndAreToldSo) {
  auto viewer = at(relay_port_, protocol::Role::viewer);
  auto commander = at(relay_port_, protocol::Role::commander);
  wait_for<protocol::Welcome>(*viewer);
  wait_for<protocol::Welcome>(*commander);
  snapshot_texts(*viewer, 2);
  server_->stop();
  thread_.join();
  const auto down = wait_for<protocol::Welcome>(
      *viewer, [](const auto& w) { return w.upstream == "reconnecting"; });
  EXPECT_EQ(down.upstream, "reconnecting");
  // Commands meanwhile get a clear error, with their seq.
  wait_for<protocol::Welcome>(*commander,
                              [](const auto& w) { return w.upstream == "reconnecting"; });
  sim::Spawn s;
  s.count = 1;
  commander->send(command(11, s));
  const auto unavailable =
      wait_for<protocol::Error>(*commander, [](const auto& e) { return e.seq == 11u; });
  EXPECT_EQ(unavailable.code, protocol::ErrorCode::upstream_unavailable);
  EXPECT_EQ(client::http_request("127.0.0.1", relay_port_, "/healthz").status, 200);

  restart_upstream();
  const auto up =
      wait_for<protocol::Welcome>(*viewer, [](const auto& w) { return w.upstream == "connected"; });
  EXPECT_EQ(up.upstream, "connected");
  const auto after = wait_for<protocol::Snapshot>(*viewer);
  EXPECT_GE(after.tick, up.tick);
  EXPECT_TRUE(viewer->is_open());
  // The commander's link is made again too.
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  bool acked = false;
  for (std::uint32_t seq = 20; !acked && std::chrono::steady_clock::now() < deadline; ++seq) {
    commander->send(command(seq, s));
    std::optional<bool> answer;  // acked, or refused (upstream_unavailable until the link is back)
    while (!answer && std::chrono::steady_clock::now() < deadline) {
      auto text = commander->receive(Millis(200));
      if (!text || protocol::is_binary_snapshot(*text)) continue;
      const auto decoded = protocol::decode_server(*text);
      if (!std::holds_alternative<ServerMessage>(decoded)) continue;
      const auto& m = std::get<ServerMessage>(decoded);
      if (const auto* a = std::get_if<protocol::Ack>(&m); a && a->seq == seq) answer = true;
      if (const auto* e = std::get_if<protocol::Error>(&m); e && e->seq == seq) answer = false;
    }
    acked = answer.value_or(false);
    // Refused: tried again two snapshots later, within the session's message rate.
    for (int snapshots = 0;
         !acked && snapshots < 2 && std::chrono::steady_clock::now() < deadline;) {
      auto text = commander->receive(Millis(200));
      if (!text) continue;
      if (protocol::is_binary_snapshot(*text)) {
        ++snapshots;
        continue;
      }
      const auto decoded = protocol::decode_server(*text);
      if (std::holds_alternative<ServerMessage>(decoded) &&
          std::holds_alternative<protocol::Snapshot>(std::get<ServerMessage>(decoded)))
        ++snapshots;
    }
  }
  EXPECT_TRUE(acked);
}

TEST_F(RelayTest, RelaysChainAndSayWhenTheirUpstreamIsReconnecting) {
  const std::uint16_t second = start_relay(relay2_, relay2_thread_, relay_port_);
  auto direct = at(port_, protocol::Role::viewer);
  auto far = at(second, protocol::Role::viewer);
  EXPECT_EQ(wait_for<protocol::Welcome>(*far).upstream, "connected");
  wait_for<protocol::Welcome>(*direct);
  const auto a = snapshot_texts(*direct, 10);
  const auto b = snapshot_texts(*far, 10);
  std::size_t same = 0;
  for (const auto& [tick, text] : b)
    if (const auto it = a.find(tick); it != a.end()) {
      ++same;
      EXPECT_EQ(text, it->second);
    }
  EXPECT_GE(same, 4u);
  server_->stop();
  thread_.join();
  // Two hops away, the viewer still learns that the world is not live.
  const auto w =
      wait_for<protocol::Welcome>(*far, [](const auto& m) { return m.upstream == "reconnecting"; });
  EXPECT_EQ(w.upstream, "reconnecting");
  restart_upstream();
  EXPECT_EQ(
      wait_for<protocol::Welcome>(*far, [](const auto& m) { return m.upstream == "connected"; })
          .upstream,
      "connected");
}

// Relays whose links take binary frames, as they do (`auto`) for a world of over 1,000 agents.
class BinaryLinkRelayTest : public RelayTest {
 protected:
  protocol::SnapshotFormat link_format() const override { return protocol::SnapshotFormat::binary; }

  // Decoded binary frames of `c`, acknowledged, by tick, until `count` ticks are held.
  std::map<std::uint64_t, protocol::BinaryFrame> frames(WsClient& c, std::size_t count) {
    protocol::BinaryClient decoder;
    std::map<std::uint64_t, protocol::BinaryFrame> out;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
      auto frame = c.receive(Millis(200));
      if (!frame || !protocol::is_binary_snapshot(*frame)) continue;
      auto got = decoder.receive(*frame);
      EXPECT_TRUE(got.frame) << got.error;
      if (!got.frame) continue;
      c.send(protocol::encode(protocol::SnapshotAck{*got.ack}));
      out[got.frame->header.tick] = std::move(*got.frame);
    }
    EXPECT_EQ(out.size(), count) << "timed out";
    return out;
  }

  // Moving agents, so that deltas carry changes.
  void spawn_movers(WsClient& commander, int n) {
    ASSERT_EQ(spawn(commander, 1, n).size(), static_cast<std::size_t>(n));
    sim::SetTarget t;
    t.agents = sim::Selection{true};
    t.target = {700, 500};
    commander.send(command(2, t));
    wait_for<protocol::Ack>(commander, [](const auto& a) { return a.seq == 2; });
  }
};

// The relay's frames carry the upstream's quantised agents as they are: a binary viewer of the
// relay decodes, tick for tick, exactly what a binary viewer of the server decodes.
TEST_F(BinaryLinkRelayTest, BinaryViewersGetExactlyTheServersQuantisedAgents) {
  auto commander = greeted(protocol::Role::commander);
  spawn_movers(*commander, 40);
  auto direct = at(port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  auto relayed = at(relay_port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  wait_for<protocol::Welcome>(*direct);
  EXPECT_EQ(wait_for<protocol::Welcome>(*relayed).upstream, "connected");
  const auto a = frames(*direct, 15);
  const auto b = frames(*relayed, 15);
  std::size_t same = 0, moved = 0;
  for (const auto& [tick, f] : b) {
    const auto it = a.find(tick);
    if (it == a.end()) continue;
    ++same;
    EXPECT_EQ(f.header.serial, it->second.header.serial) << "tick " << tick;
    EXPECT_EQ(f.agents, it->second.agents) << "tick " << tick;
    if (same > 1 && f.agents.size() == 40) moved += f.agents.front().speed > 0;
  }
  EXPECT_GE(same, 8u);
  EXPECT_GE(moved, 1u) << "the agents should be moving";
  // The server sees the relay's link as one binary viewer of the whole world.
  EXPECT_EQ(metric("herd_sessions{role=\"commander\"}"), 2);
}

// A relay's viewer that asks for a coarser quantum gets the server's 1/64-unit agents coarsened
// (protocol::coarsen): the relay derives every quantum from its link's finest frames.
TEST_F(BinaryLinkRelayTest, AViewersQuantumIsServedFromTheLinksFinestFrames) {
  auto commander = greeted(protocol::Role::commander);
  spawn_movers(*commander, 40);
  auto direct = at(port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  auto relayed = at(relay_port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary, 1);
  wait_for<protocol::Welcome>(*direct);
  EXPECT_EQ(wait_for<protocol::Welcome>(*relayed).upstream, "connected");
  const auto a = frames(*direct, 15);
  const auto b = frames(*relayed, 15);
  std::size_t same = 0;
  for (const auto& [tick, f] : b) {
    EXPECT_EQ(f.header.scale, 1);
    const auto it = a.find(tick);
    if (it == a.end()) continue;
    ++same;
    protocol::QuantState fine;
    fine.x_bits = it->second.header.x_bits;
    fine.y_bits = it->second.header.y_bits;
    fine.agents = it->second.agents;
    EXPECT_EQ(f.agents, protocol::coarsen(fine, 1).agents) << "tick " << tick;
  }
  EXPECT_GE(same, 8u);
}

// A JSON client of a relay whose link takes binary frames gets the frames' agents dequantised
// (within half a quantum of the server's), and the whole objects of the agents it inspects.
TEST_F(BinaryLinkRelayTest, JsonViewersGetTheAgentsWithinAQuantumAndTheInspectedWhole) {
  auto commander = greeted(protocol::Role::commander);
  spawn_movers(*commander, 30);
  auto direct = at(port_, protocol::Role::viewer);
  auto relayed = at(relay_port_, protocol::Role::viewer);
  wait_for<protocol::Welcome>(*direct);
  wait_for<protocol::Welcome>(*relayed);
  relayed->send(R"({"type":"inspect","agents":[3]})");
  const auto inspected = wait_for<protocol::Snapshot>(*relayed, [](const protocol::Snapshot& s) {
    return s.agents.size() == 30 && s.agents[2].behaviour == sim::BehaviourKind::arrive;
  });
  EXPECT_EQ(inspected.agents[2].id, 3u);
  const auto server_view = wait_for<protocol::Snapshot>(
      *direct, [](const protocol::Snapshot& s) { return s.agents.size() == 30; });
  ASSERT_TRUE(inspected.agents[2].target);
  EXPECT_EQ(inspected.agents[2].target, server_view.agents[2].target) << "its own, exactly";
  EXPECT_EQ(inspected.agents[1].behaviour, sim::BehaviourKind::idle)
      << "an agent nobody inspects carries what binary frames carry";
  const auto texts = snapshot_texts(*direct, 10);
  const auto relayed_texts = snapshot_texts(*relayed, 10);
  std::size_t compared = 0;
  for (const auto& [tick, text] : relayed_texts) {
    const auto it = texts.find(tick);
    if (it == texts.end()) continue;
    auto decode = [](const std::string& t) {
      return std::get<protocol::Snapshot>(std::get<ServerMessage>(protocol::decode_server(t)));
    };
    const auto want = decode(it->second);
    const auto got = decode(text);
    EXPECT_EQ(got.serial, want.serial);
    ASSERT_EQ(got.agents.size(), want.agents.size());
    for (std::size_t i = 0; i < want.agents.size(); ++i) {
      EXPECT_EQ(got.agents[i].id, want.agents[i].id);
      EXPECT_NEAR(got.agents[i].x, want.agents[i].x, 1.0 / 128 + 0.0005);
      EXPECT_NEAR(got.agents[i].y, want.agents[i].y, 1.0 / 128 + 0.0005);
    }
    ++compared;
  }
  EXPECT_GE(compared, 5u);
}

// A relay of a relay: the far relay's binary viewers get the server's ticks with the server's
// agents, and a command sent through both hops is applied upstream and acked back.
TEST_F(BinaryLinkRelayTest, ARelayOfARelayCarriesTheServersTicksAndCommands) {
  const std::uint16_t second = start_relay(relay2_, relay2_thread_, relay_port_);
  auto commander = at(second, protocol::Role::commander);
  EXPECT_EQ(wait_for<protocol::Welcome>(*commander).role, protocol::Role::commander);
  spawn_movers(*commander, 25);
  auto direct = at(port_, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  auto far = at(second, protocol::Role::viewer, {}, protocol::SnapshotFormat::binary);
  wait_for<protocol::Welcome>(*direct);
  EXPECT_EQ(wait_for<protocol::Welcome>(*far).upstream, "connected");
  const auto a = frames(*direct, 15);
  const auto b = frames(*far, 15);
  std::size_t same = 0;
  for (const auto& [tick, f] : b)
    if (const auto it = a.find(tick); it != a.end()) {
      ++same;
      EXPECT_EQ(f.agents, it->second.agents) << "tick " << tick;
    }
  EXPECT_GE(same, 8u);
  // Two hops down and back: the server's error for an unknown agent reaches the asker.
  commander->send(command(9, sim::Remove{{false, {999}}}));
  const auto unknown =
      wait_for<protocol::Error>(*commander, [](const auto& e) { return e.seq == 9u; });
  EXPECT_EQ(unknown.seq, 9u);
  EXPECT_EQ(unknown.code, protocol::ErrorCode::unknown_agent);
  EXPECT_EQ(metric("herd_commands_total{result=\"accepted\"}"), 2) << "the spawn and the target";
}

// ---- a fast upstream: frames wait in the relay's slot -----------------------------------------

// The agents an upstream of the test sends at `tick`: 40 of them, placed by the tick, quantised
// as the server quantises them (the world of welcome_for_pace).
protocol::QuantState paced_state(std::uint64_t tick) {
  std::vector<protocol::AgentState> agents(40);
  for (std::uint32_t k = 0; k < agents.size(); ++k) {
    agents[k].id = k + 1;
    agents[k].x = 10 + static_cast<double>((tick * 3 + k * 17) % 700);
    agents[k].y = 10 + static_cast<double>((tick * 5 + k * 11) % 500);
    agents[k].vx = 1;
    agents[k].r = 4;
  }
  protocol::QuantState q = protocol::quantise(tick, static_cast<double>(tick) / 10,
                                              sim::AvoidanceMode::cardioid, 800, 600, agents);
  q.serial = tick;
  return q;
}

// The side section of that tick's frame: one obstacle, placed by the tick.
double paced_obstacle_x(std::uint64_t tick) { return 10 + static_cast<double>(tick % 700); }
std::string paced_side(std::uint64_t tick) {
  return R"({"type":"snapshot","tick":)" + std::to_string(tick) + R"(,"time":)" +
         std::to_string(static_cast<double>(tick) / 10) +
         R"(,"avoidance":"cardioid","agents":[],"obstacles":[{"id":1,"x":)" +
         std::to_string(paced_obstacle_x(tick)) +
         R"(,"y":20,"r":5}],"collisions":[],"formations":[]})";
}

std::string welcome_for_pace() {
  protocol::Welcome w;
  w.server = "fast-upstream";
  w.tick_rate = 10;
  w.snapshot_rate = 10;  // the relay paces at 1.25 times this plus one a second, bursts of 4
  w.dt = 0.1;
  w.tick = 1;
  w.world = {800, 600};
  w.max_agents = 100;
  return protocol::encode(w);
}

// A relay whose upstream sends binary frames far faster than the relay relays them: the upstream
// sends each keyframe as soon as the relay acknowledged the one before, hundreds a second against
// the 13.5 a second the welcome's rate allows. Past the first burst every frame waits in the
// relay's slot (its bytes held there) while the link reads the next, which replaces it; the
// waiting one is relayed when the pace allows. The relay's viewers must get exactly the agents
// the upstream sent for each tick they see, up to the last, and the relay must log no message
// it could not use. In the sanitizer tree ctest runs this again and again
// (net.relay_waiting_frame_repeated): a held frame read after its bytes were freed is reported.
TEST(RelayPaceTest, FramesFasterThanThePaceWaitAndReachViewersIntact) {
  constexpr std::uint64_t kLast = 1000;
  std::mutex mutex;
  std::condition_variable cv;
  bool go = false;
  std::uint64_t sent = 0;
  // Each frame with a side section, which the decoded frame views in the message's bytes while
  // it waits: an obstacle placed by the tick.
  const auto frame = [](std::uint64_t tick) {
    const protocol::QuantState q = paced_state(tick);
    return protocol::encode_binary({&q, nullptr}, std::nullopt, false, paced_side(tick));
  };
  testing::FakeWsServer::Script script;
  script.on_message = [&](testing::FakeWsServer::Stream& ws, const std::string& text) {
    const auto send = [&](const std::string& bytes, bool binary) {
      ws.binary(binary);
      ws.write(boost::asio::buffer(bytes));
    };
    if (text.find(R"("type":"hello")") != std::string::npos) {
      send(welcome_for_pace(), false);
      send(frame(1), true);
      const std::lock_guard lock(mutex);
      sent = 1;
      return;
    }
    auto decoded = protocol::decode_client(text, protocol::kMaxJsonDepth);
    const auto* msg = std::get_if<protocol::ClientMessage>(&decoded);
    const auto* ack = msg ? std::get_if<protocol::SnapshotAck>(msg) : nullptr;
    if (!ack) return;
    std::unique_lock lock(mutex);
    if (ack->tick != sent || sent >= kLast) return;
    // The stream starts once the relay's viewers are welcomed (bounded: the test fails then).
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return go; });
    const std::uint64_t next = ++sent;
    lock.unlock();
    send(frame(next), true);
  };
  testing::FakeWsServer upstream("127.0.0.1", 0, script);
  ASSERT_TRUE(upstream.ok()) << upstream.error();

  std::mutex log_mutex;
  std::vector<std::string> log;
  ServerConfig config;
  config.sim_threads = 2;
  config.address = "127.0.0.1";
  config.port = 0;
  config.web_root = fs::temp_directory_path().string();
  config.log = [&](std::string_view line) {
    const std::lock_guard lock(log_mutex);
    log.emplace_back(line);
  };
  auto url = RelayWorld::parse_url("ws://127.0.0.1:" + std::to_string(upstream.port()) + "/ws");
  Server relay(config, std::make_unique<RelayWorld>(
                           std::get<UpstreamUrl>(std::move(url)),
                           RelayWorld::Link{false, protocol::SnapshotFormat::binary}));
  const std::uint16_t port = relay.start();
  std::thread relay_thread([&relay] { relay.run(); });

  const auto viewer = [&](protocol::SnapshotFormat format) {
    auto c = std::make_unique<WsClient>();
    c->connect("127.0.0.1", port);
    protocol::Hello h{1, protocol::Role::viewer, "test", {}};
    h.format = format;
    c->send(protocol::encode(h));
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline)
      if (auto text = c->receive(Millis(200));
          text && text->find(R"("type":"welcome")") != std::string::npos)
        return c;
    ADD_FAILURE() << "the relay never welcomed its viewer";
    return c;
  };
  auto json = viewer(protocol::SnapshotFormat::json);
  auto binary = viewer(protocol::SnapshotFormat::binary);
  {
    const std::lock_guard lock(mutex);
    go = true;
  }
  cv.notify_all();

  // Every snapshot each viewer gets, until both have the last.
  std::map<std::uint64_t, protocol::Snapshot> json_got;
  std::map<std::uint64_t, protocol::BinaryFrame> binary_got;
  protocol::BinaryClient decoder;
  int undecodable = 0;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while ((!json_got.count(kLast) || !binary_got.count(kLast)) &&
         std::chrono::steady_clock::now() < deadline) {
    if (auto text = json->receive(Millis(5)); text && !protocol::is_binary_snapshot(*text)) {
      auto decoded = protocol::decode_server(*text);
      const auto* m = std::get_if<ServerMessage>(&decoded);
      if (!m) ++undecodable;
      if (const auto* snap = m ? std::get_if<protocol::Snapshot>(m) : nullptr)
        json_got[snap->tick] = *snap;
    }
    if (auto bytes = binary->receive(Millis(5)); bytes && protocol::is_binary_snapshot(*bytes)) {
      auto r = decoder.receive(*bytes);
      if (r.keyframe) binary->send(protocol::encode(protocol::KeyframeRequest{}));
      if (!r.frame) {
        ++undecodable;
        continue;
      }
      if (r.ack) binary->send(protocol::encode(protocol::SnapshotAck{*r.ack}));
      binary_got[r.frame->header.tick] = std::move(*r.frame);
    }
  }
  const double relayed = [&] {
    const auto m = client::http_request("127.0.0.1", port, "/metrics").body;
    const std::string series = "\nherd_relay_upstream_snapshots_total ";
    const auto at = m.find(series);
    return at == std::string::npos ? -1.0 : std::stod(m.substr(at + series.size()));
  }();
  relay.stop();
  relay_thread.join();
  if (!json_got.count(kLast) || !binary_got.count(kLast))
    for (const auto& line : log) std::fprintf(stderr, "relay: %s\n", line.c_str());

  EXPECT_TRUE(json_got.count(kLast)) << "the JSON viewer never got the last frame's snapshot";
  EXPECT_TRUE(binary_got.count(kLast)) << "the binary viewer never got the last frame";
  EXPECT_EQ(undecodable, 0);
  // Paced: far fewer relayed than sent, and the last (sent long after the first burst was spent)
  // came through the waiting slot.
  EXPECT_LT(relayed, static_cast<double>(kLast) / 2) << "relayed at the pace, not the upstream's";
  EXPECT_GE(relayed, 5) << "beyond the first burst";
  // The side section came through with the frame it was sent in.
  ASSERT_TRUE(json_got.count(kLast) && json_got.at(kLast).obstacles);
  for (const auto& [tick, snap] : json_got) {
    if (snap.obstacles) {
      ASSERT_EQ(snap.obstacles->size(), 1u) << "tick " << tick;
      EXPECT_DOUBLE_EQ(snap.obstacles->front().x, paced_obstacle_x(tick)) << "tick " << tick;
    }
    const protocol::QuantState want = paced_state(tick);
    ASSERT_EQ(snap.agents.size(), want.agents.size()) << "tick " << tick;
    for (std::size_t k = 0; k < want.agents.size(); ++k) {
      const protocol::AgentState a = protocol::dequantise(want.agents[k]);
      EXPECT_EQ(snap.agents[k].id, a.id) << "tick " << tick;
      EXPECT_DOUBLE_EQ(snap.agents[k].x, a.x) << "tick " << tick << " agent " << a.id;
      EXPECT_DOUBLE_EQ(snap.agents[k].y, a.y) << "tick " << tick << " agent " << a.id;
    }
  }
  for (const auto& [tick, f] : binary_got)
    EXPECT_EQ(f.agents, paced_state(tick).agents) << "the binary viewer's frame of tick " << tick;
  std::size_t bad = 0;
  for (const auto& line : log)
    if (line.find("upstream_bad_message") != std::string::npos ||
        line.find("not a snapshot") != std::string::npos ||
        line.find("snapshot that") != std::string::npos) {
      ++bad;
      ADD_FAILURE() << line;
    }
  EXPECT_EQ(bad, 0u);
  std::fprintf(stderr,
               "fast upstream: %llu frames sent, %.0f relayed; viewers saw %zu (JSON), "
               "%zu (binary)\n",
               static_cast<unsigned long long>(kLast), relayed, json_got.size(), binary_got.size());
}

}  // namespace
}  // namespace herd::net
