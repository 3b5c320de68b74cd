// The real server, in process, on a port the OS picks, driven by real WebSocket and HTTP clients.
// Nothing sleeps: every wait is for a message, bounded by a timeout. Pause, step, resume and the
// world replaced (load_scenario, reset) are in server_control_test.cpp.
#include <algorithm>
#include <csignal>
#include <future>
#include <set>

#include "net/server_fixture.hpp"

namespace herd::net {
namespace {

TEST_F(ServerTest, ServesTheViewerAndHealth) {
  auto index = client::http_request("127.0.0.1", port_, "/");
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_NE(index.body.find("<title>herd</title>"), std::string::npos);
  auto health = client::http_request("127.0.0.1", port_, "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body.rfind("{\"status\":\"ok\",\"tick\":", 0), 0u) << health.body;
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/missing.js").status, 404);
  // A traversal reads as any file not served: 404, as operations.md's hostile clients table says.
  for (const char* t :
       {"/%2e%2e/%2e%2e/etc/passwd", "/../x", "/%2e%2e/x", "/%2E%2E%2Fx", "/..%5cx"})
    EXPECT_EQ(client::http_request("127.0.0.1", port_, t).status, 404) << t;
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/ws").status, 426);
  EXPECT_EQ(client::http_request("127.0.0.1", port_, "/", "POST").status, 405);
  auto head = client::http_request("127.0.0.1", port_, "/", "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
}

TEST_F(ServerTest, WelcomeDescribesTheWorld) {
  auto c = connect();
  c->send(R"({"type":"hello","protocol":1,"role":"viewer"})");
  const auto w = wait_for<protocol::Welcome>(*c);
  EXPECT_EQ(w.protocol, 1);
  EXPECT_EQ(w.tick_rate, 120);
  EXPECT_EQ(w.snapshot_rate, 30);
  EXPECT_EQ(w.world.width, 800);
  EXPECT_EQ(w.world.height, 600);
  EXPECT_EQ(w.max_message_bytes, 65536u);
  EXPECT_EQ(w.max_agents, 100u);
  EXPECT_GT(w.session, 0u);
}

TEST_F(ServerTest, SpawnTargetAndSeeTheAgentArrive) {
  auto c = greeted(protocol::Role::commander);
  sim::SpawnAgent s;
  s.position = {100, 100};
  s.group = 4;
  c->send(command(1, sim::Spawn{0, 0, {s}}));
  const auto spawned = wait_for<protocol::Ack>(*c);
  EXPECT_EQ(spawned.seq, 1u);
  ASSERT_TRUE(spawned.agents && spawned.agents->size() == 1);
  const std::uint32_t id = spawned.agents->front();

  c->send(command(2, sim::SetTarget{{false, {id}}, {300, 150}, sim::BehaviourKind::arrive, {}}));
  const auto targeted = wait_for<protocol::Ack>(*c);
  EXPECT_EQ(targeted.seq, 2u);
  EXPECT_EQ(targeted.count, 1u);
  EXPECT_GE(targeted.tick, spawned.tick);  // the same tick when both came between two ticks

  // The first snapshot at or after the ack's tick already carries the target.
  const auto moving =
      wait_for<protocol::Snapshot>(*c, [&](const auto& s) { return s.tick >= targeted.tick; });
  ASSERT_EQ(moving.agents.size(), 1u);
  ASSERT_TRUE(moving.agents[0].target);
  EXPECT_EQ(moving.agents[0].target->x, 300);
  EXPECT_EQ(moving.agents[0].group, 4);

  std::uint64_t last_tick = moving.tick;
  const auto arrived = wait_for<protocol::Snapshot>(*c, [&](const auto& snap) {
    EXPECT_GT(snap.tick, last_tick) << "snapshot ticks must increase";
    last_tick = snap.tick;
    return snap.agents.size() == 1 && snap.agents[0].state == sim::MoveState::arrived;
  });
  ASSERT_EQ(arrived.agents.size(), 1u);
  const auto& a = arrived.agents[0];
  EXPECT_NEAR(a.x, 300, 0.051);
  EXPECT_NEAR(a.y, 150, 0.051);
  EXPECT_EQ(a.vx, 0);
  EXPECT_EQ(a.vy, 0);
}

TEST_F(ServerTest, BadMessagesGetErrorsAndTheConnectionGoesOn) {
  auto c = greeted(protocol::Role::commander);
  const std::pair<const char*, protocol::ErrorCode> cases[] = {
      {"this is not json", protocol::ErrorCode::bad_json},
      {R"({"type":"warp"})", protocol::ErrorCode::bad_type},
      {R"({"type":"command","seq":5,"cmd":"spawn","count":-3})", protocol::ErrorCode::bad_field},
      {R"({"type":"command","seq":6,"cmd":"dance"})", protocol::ErrorCode::unknown_command},
      {R"({"type":"hello","protocol":1,"role":"viewer"})", protocol::ErrorCode::already_greeted},
      {R"({"type":"command","seq":7,"cmd":"set_target","agents":[99],"target":{"x":1,"y":1}})",
       protocol::ErrorCode::unknown_agent},
      {R"({"type":"command","seq":8,"cmd":"set_target","agents":"all","target":{"x":900,"y":1}})",
       protocol::ErrorCode::out_of_bounds},
      {R"({"type":"command","seq":9,"cmd":"spawn","count":101})",
       protocol::ErrorCode::limit_exceeded},
  };
  for (const auto& [text, code] : cases) {
    c->send(text);
    const auto e = wait_for<protocol::Error>(*c);
    EXPECT_EQ(e.code, code) << text << " -> " << e.message;
  }
  c->send_binary("\x01\x02");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::binary_not_supported);
  // Nothing changed, and the same connection still works.
  c->send(command(10, sim::Spawn{2, 0, {}}));
  const auto ack = wait_for<protocol::Ack>(*c);
  EXPECT_EQ(ack.seq, 10u);
  ASSERT_TRUE(ack.agents);
  EXPECT_EQ(*ack.agents, (std::vector<std::uint32_t>{1, 2}));  // the refused spawns used no ids
  const auto snap =
      wait_for<protocol::Snapshot>(*c, [&](const auto& s) { return s.tick >= ack.tick; });
  EXPECT_EQ(snap.agents.size(), 2u);
  for (const auto& a : snap.agents) EXPECT_FALSE(a.target);
  // Refused commands (those whose seq could be read): seq 5, 6, 7, 8 and 9.
  EXPECT_EQ(server_->stats().commands_rejected, 5u);
}

TEST_F(ServerTest, RolesAndOrderAreEnforced) {
  auto c = connect();
  c->send(command(1, sim::Spawn{1, 0, {}}));
  auto e = wait_for<protocol::Error>(*c);
  EXPECT_EQ(e.code, protocol::ErrorCode::hello_required);
  EXPECT_EQ(e.seq, 1u);
  c->send(protocol::encode(protocol::Ping{77}));  // ping is fine before hello
  EXPECT_EQ(wait_for<protocol::Pong>(*c).id, 77u);

  auto viewer = greeted(protocol::Role::viewer);
  viewer->send(command(2, sim::Spawn{1, 0, {}}));
  e = wait_for<protocol::Error>(*viewer);
  EXPECT_EQ(e.code, protocol::ErrorCode::forbidden);
  EXPECT_EQ(e.seq, 2u);
  EXPECT_TRUE(wait_for<protocol::Snapshot>(*viewer).agents.empty());
}

TEST_F(ServerTest, ProtocolMismatchIsAnsweredThenClosedWith1002) {
  auto c = connect();
  c->send(R"({"type":"hello","protocol":2,"role":"viewer"})");
  const auto e = wait_for<protocol::Error>(*c);
  EXPECT_EQ(e.code, protocol::ErrorCode::protocol_mismatch);
  EXPECT_NE(e.message.find("protocol 1"), std::string::npos);
  EXPECT_EQ(wait_closed(*c), 1002);
}

TEST_F(ServerTest, OversizedFramesCloseWith1009) {
  auto c = greeted(protocol::Role::commander);
  c->send(std::string(70000, ' '));
  EXPECT_EQ(wait_closed(*c), 1009);
  // The server goes on for everyone else.
  auto other = greeted(protocol::Role::viewer);
  wait_for<protocol::Snapshot>(*other);
}

TEST_F(ServerTest, OneSnapshotTextIsSharedByEverySession) {
  auto a = greeted(protocol::Role::viewer);
  auto b = greeted(protocol::Role::viewer);
  // Collect raw snapshot texts from both and find a tick they both saw.
  auto collect = [](WsClient& c) {
    std::map<std::uint64_t, std::string> out;
    for (int i = 0; i < 200 && out.size() < 6; ++i) {
      auto t = c.receive(Millis(200));
      if (!t) continue;
      auto d = protocol::decode_server(*t);
      if (auto* m = std::get_if<ServerMessage>(&d);
          m && std::holds_alternative<protocol::Snapshot>(*m))
        out[std::get<protocol::Snapshot>(*m).tick] = *t;
    }
    return out;
  };
  const auto sa = collect(*a);
  const auto sb = collect(*b);
  int common = 0;
  for (const auto& [tick, text] : sa)
    if (auto it = sb.find(tick); it != sb.end()) {
      EXPECT_EQ(text, it->second);
      ++common;
    }
  EXPECT_GT(common, 0);
}

TEST_F(ServerTest, InspectedAgentsCarryTheirAvoidanceTraceAndCollisionsAreReported) {
  auto c = greeted(protocol::Role::commander);
  c->send(R"({"type":"inspect","agents":[1]})");
  sim::SpawnAgent a, b;
  a.position = {100, 300};
  a.target = sim::Vec2{700, 300};
  b.position = {700, 300};
  b.target = sim::Vec2{100, 300};
  c->send(command(1, sim::Spawn{0, 0, {a, b}}));
  EXPECT_EQ(wait_for<protocol::Ack>(*c).seq, 1u);
  const auto traced = wait_for<protocol::Snapshot>(
      *c, [](const auto& s) { return !s.inspect.empty() && !s.inspect[0].pushes.empty(); });
  EXPECT_EQ(traced.inspect[0].id, 1u);
  EXPECT_EQ(traced.inspect[0].pushes[0].id, 2u);
  // Without avoidance the same pair meets head on: the collision is in a snapshot.
  sim::SetAvoidance none;
  none.mode = sim::AvoidanceMode::none;
  c->send(command(2, none));
  EXPECT_EQ(wait_for<protocol::Ack>(*c).seq, 2u);
  const auto hit =
      wait_for<protocol::Snapshot>(*c, [](const auto& s) { return !s.collisions.empty(); });
  EXPECT_EQ(hit.avoidance, sim::AvoidanceMode::none);
  EXPECT_EQ(hit.collisions[0].a, 1u);
  EXPECT_EQ(hit.collisions[0].b, 2u);
  EXPECT_GT(hit.collisions[0].impulse, 0);
  const auto red = std::find_if(hit.agents.begin(), hit.agents.end(),
                                [](const auto& ag) { return ag.collided; });
  EXPECT_NE(red, hit.agents.end()) << "collided agents are flagged for drawing red";
}

TEST_F(ServerTest, MapsReachClientsInWelcomeAndWhenTheyChange) {
  auto c = greeted(protocol::Role::commander);
  c->send(
      R"({"type":"command","seq":1,"cmd":"load_map","width":4,"height":3,"tile_size":40,"rows":["....",".##.","...."]})");
  EXPECT_EQ(wait_for<protocol::Ack>(*c).seq, 1u);
  const auto with_map =
      wait_for<protocol::Snapshot>(*c, [](const auto& s) { return s.map.has_value(); });
  EXPECT_EQ(with_map.map->rows[1], ".##.");
  // A later client gets it in its welcome.
  auto late = connect();
  late->send(protocol::encode(protocol::Hello{1, protocol::Role::viewer, "", {}}));
  const auto w = wait_for<protocol::Welcome>(*late);
  ASSERT_TRUE(w.map);
  EXPECT_EQ(w.map->width, 4);
  EXPECT_EQ(w.map->tile_size, 40);
  // Refusals with their codes; then a tile change goes out again.
  c->send(
      R"({"type":"command","seq":2,"cmd":"load_map","width":40,"height":3,"tile_size":40,"rows":[")" +
      std::string(40, '.') + R"(",")" + std::string(40, '.') + R"(",")" + std::string(40, '.') +
      R"("]})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_map);
  c->send(R"({"type":"command","seq":3,"cmd":"spawn","agents":[{"x":20,"y":20}]})");
  EXPECT_EQ(wait_for<protocol::Ack>(*c).seq, 3u);
  c->send(
      R"({"type":"command","seq":4,"cmd":"set_target","agents":"all","target_tile":{"x":1,"y":1}})");
  const auto blocked = wait_for<protocol::Error>(*c);
  EXPECT_EQ(blocked.code, protocol::ErrorCode::unreachable);
  EXPECT_EQ(blocked.seq, 4u);
  c->send(
      R"({"type":"command","seq":5,"cmd":"set_tiles","tiles":[{"x":1,"y":1,"blocked":false}]})");
  EXPECT_EQ(wait_for<protocol::Ack>(*c).count, 1u);
  const auto changed =
      wait_for<protocol::Snapshot>(*c, [](const auto& s) { return s.map.has_value(); });
  EXPECT_EQ(changed.map->rows[1], "..#.");
}

TEST_F(ServerTest, InspectNeedsHelloAndABoundedList) {
  auto c = connect();
  c->send(R"({"type":"inspect","agents":[1]})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::hello_required);
  c->send(R"({"type":"hello","protocol":1,"role":"viewer"})");
  wait_for<protocol::Welcome>(*c);
  c->send(R"({"type":"inspect","agents":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]})");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_field);
}

TEST_F(ServerTest, MetricsCountWhatHappenedAndLogsSayItOnALineEach) {
  auto c = greeted(protocol::Role::viewer);
  c->send("not json");
  EXPECT_EQ(wait_for<protocol::Error>(*c).code, protocol::ErrorCode::bad_json);
  wait_for<protocol::Snapshot>(*c);
  const auto metrics = client::http_request("127.0.0.1", port_, "/metrics");
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type.rfind("text/plain; version=0.0.4", 0), 0u);
  auto value = [&](const std::string& series) {
    const auto at = metrics.body.find("\n" + series + " ");
    EXPECT_NE(at, std::string::npos) << series;
    return at == std::string::npos ? -1.0 : std::stod(metrics.body.substr(at + series.size() + 2));
  };
  EXPECT_GT(value("herd_tick_duration_seconds_count"), 0);
  // The step's profile: every stage timed on every step.
  const double steps = value("herd_tick_duration_seconds_count");
  for (const char* stage :
       {"assignments", "grid", "desires", "avoidance", "integrate", "collisions", "formations"})
    EXPECT_GE(value("herd_step_stage_seconds_count{stage=\"" + std::string(stage) + "\"}"), steps)
        << stage;
  EXPECT_GT(value("herd_step_stage_seconds_sum{stage=\"avoidance\"}"), 0);
  EXPECT_EQ(value("herd_sessions{role=\"viewer\"}"), 1);
  EXPECT_EQ(value("herd_errors_total{code=\"bad_json\"}"), 1);
  EXPECT_GT(value("herd_snapshots_sent_total"), 0);
  EXPECT_GT(value("herd_bytes_out_total"), 0);
  const auto health = client::http_request("127.0.0.1", port_, "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_NE(health.body.find("\"behind_ms\":"), std::string::npos);
  const auto lines = log_lines();
  const bool opened = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find(" info session_opened session=") != std::string::npos;
  });
  const bool hello = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find(" info hello ") != std::string::npos &&
           l.find("role=viewer") != std::string::npos;
  });
  EXPECT_TRUE(opened);
  EXPECT_TRUE(hello);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0][4], '-') << "starts with an ISO 8601 time: " << lines[0];
  EXPECT_EQ(lines[0].substr(23, 2), "Z ") << lines[0];
}

TEST_F(ServerTest, StopClosesSessionsWithGoingAway) {
  auto c = greeted(protocol::Role::viewer);
  server_->stop();
  EXPECT_EQ(wait_closed(*c), 1001);
}

// Sessions spread over several I/O threads: each one's replies come in the order of its messages,
// whether the tick thread answered them (commands) or its I/O thread did (bad JSON, pings), and
// every session sees the one world.
class ServerOnThreeIoThreadsTest : public ServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef&) override { config.io_threads = 3; }
};

TEST_F(ServerOnThreeIoThreadsTest, RepliesKeepTheOrderOfTheMessagesTheyAnswer) {
  std::vector<std::unique_ptr<WsClient>> clients;
  for (int i = 0; i < 6; ++i) clients.push_back(greeted(protocol::Role::commander));
  for (auto& c : clients) {
    c->send(command(1, sim::Spawn{1, 0, {}}));
    c->send(R"({"type":"command","seq":2,"cmd":"spawn","count":-3})");  // refused on reading
    c->send(protocol::encode(protocol::Ping{3}));
    c->send(
        R"({"type":"command","seq":4,"cmd":"set_target","agents":"all","target":{"x":900,"y":1}})");
    c->send(command(5, sim::Spawn{1, 0, {}}));
  }
  std::set<std::uint32_t> ids;
  for (auto& c : clients) {
    std::vector<std::string> order;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (order.size() < 5 && std::chrono::steady_clock::now() < deadline) {
      auto text = c->receive(Millis(200));
      if (!text || protocol::is_binary_snapshot(*text)) continue;
      const auto decoded = protocol::decode_server(*text);
      ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded)) << *text;
      const auto& msg = std::get<ServerMessage>(decoded);
      if (const auto* ack = std::get_if<protocol::Ack>(&msg)) {
        order.push_back("ack " + std::to_string(ack->seq));
        if (ack->agents) ids.insert(ack->agents->begin(), ack->agents->end());
      } else if (const auto* e = std::get_if<protocol::Error>(&msg)) {
        order.push_back("error " + std::to_string(e->seq.value_or(0)) + " " +
                        std::string(protocol::to_string(e->code)));
      } else if (const auto* pong = std::get_if<protocol::Pong>(&msg)) {
        order.push_back("pong " + std::to_string(pong->id));
      }
    }
    EXPECT_EQ(order, (std::vector<std::string>{"ack 1", "error 2 bad_field", "pong 3",
                                               "error 4 out_of_bounds", "ack 5"}));
  }
  EXPECT_EQ(ids.size(), 12u) << "every spawn made its own agent";
  for (auto& c : clients)
    wait_for<protocol::Snapshot>(*c, [](const auto& s) { return s.agents.size() == 12; });
  EXPECT_EQ(metric("herd_sessions{role=\"commander\"}"), 6);
  EXPECT_EQ(metric("herd_command_reply_seconds_count"), 6 * 3)
      << "three commands each reached the tick thread";
}

// SIGTERM to the process (each test runs in a process of its own): the server's signal_set takes
// it, says which signal on the server's thread, and stops the server; a second signal while or
// after it stops is taken too, not left to kill the process.
TEST(ServerSignals, SigtermStopsTheServerAndASecondSignalIsTaken) {
  ServerConfig config;
  config.address = "127.0.0.1";
  config.port = 0;
  config.web_root = HERD_WEB_ROOT_FOR_TESTS;
  Server server(config, sim::World(sim::WorldDef{}));
  server.start();
  std::atomic<int> said{0};
  std::atomic<int> calls{0};
  server.stop_on_signals([&](int signal) {
    said = signal;
    ++calls;
  });
  std::promise<void> returned;
  auto done = returned.get_future();
  std::thread loop([&] {
    server.run();
    returned.set_value();
  });
  std::raise(SIGTERM);
  const bool stopped = done.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  if (!stopped) server.stop();
  loop.join();
  EXPECT_TRUE(stopped) << "run() did not return within 10 s of SIGTERM";
  EXPECT_EQ(said.load(), SIGTERM);
  std::raise(SIGINT);  // the server still exists: its signal_set takes it
  EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace herd::net
