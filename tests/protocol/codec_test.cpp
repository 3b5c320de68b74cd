// The JSON codec: round trips, and the exact error for each way a message can be wrong.
#include "protocol/codec.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "herd/sim/world.hpp"
#include "publish/world_messages.hpp"

namespace herd::protocol {
namespace {

using publish::encode_snapshot;
using publish::inspect_texts;

ClientMessage decode_ok(const std::string& text) {
  auto d = decode_client(text);
  if (auto* e = std::get_if<Error>(&d))
    ADD_FAILURE() << text << " -> " << to_string(e->code) << ": " << e->message;
  return std::get<ClientMessage>(d);
}

Error decode_err(const std::string& text) {
  auto d = decode_client(text);
  if (!std::holds_alternative<Error>(d)) {
    ADD_FAILURE() << "accepted: " << text;
    return {};
  }
  return std::get<Error>(d);
}

template <class T>
void expect_client_round_trip(const T& msg) {
  const std::string text = encode(msg);
  const ClientMessage back = decode_ok(text);
  ASSERT_TRUE(std::holds_alternative<T>(back)) << text;
  EXPECT_EQ(std::get<T>(back), msg) << text;
}

TEST(ClientCodec, RoundTripsEveryMessage) {
  expect_client_round_trip(Hello{1, Role::commander, "herd-test", "t0ken"});
  expect_client_round_trip(Hello{1, Role::viewer, "", {}});
  expect_client_round_trip(Hello{1, Role::viewer, "", {}, SnapshotFormat::binary, 2});
  expect_client_round_trip(Ping{4294967295u});
  expect_client_round_trip(CommandMsg{
      7,
      sim::SetTarget{{false, {1, 2, 4294967295u}}, {0.25, 599.5}, sim::BehaviourKind::seek, {}}});
  expect_client_round_trip(
      CommandMsg{8, sim::SetTarget{{true, {}}, {1, 2}, sim::BehaviourKind::arrive, {}}});
  expect_client_round_trip(CommandMsg{9, sim::Spawn{10, 255, {}}});
  sim::SpawnAgent a;
  a.position = {1.5, 2.5};
  a.group = 3;
  a.radius = 4;
  a.max_speed = 50;
  a.max_force = 0;
  a.target = sim::Vec2{7, 8};
  sim::SpawnAgent b;
  b.position = {9, 10};
  expect_client_round_trip(CommandMsg{10, sim::Spawn{0, 0, {a, b}}});
}

TEST(ClientCodec, RoundTripsEveryNewCommand) {
  using K = sim::BehaviourKind;
  auto behave = [](K kind, sim::AgentId agent, sim::Vec2 point, double radius, K response,
                   bool here) {
    sim::SetBehaviour c;
    c.agents = {false, {1, 2}};
    c.behaviour.kind = kind;
    c.behaviour.agent = agent;
    c.behaviour.point = point;
    c.behaviour.radius = radius;
    c.behaviour.response = response;
    c.hold_here = here;
    return c;
  };
  expect_client_round_trip(CommandMsg{1, behave(K::pursue, 7, {}, 0, K::pursue, false)});
  expect_client_round_trip(
      CommandMsg{2, behave(K::flee, sim::kNoAgent, {5, 6}, 80, K::pursue, false)});
  expect_client_round_trip(CommandMsg{3, behave(K::flee, 9, {}, 0, K::pursue, false)});
  expect_client_round_trip(CommandMsg{4, behave(K::react, 9, {}, 150, K::evade, false)});
  expect_client_round_trip(CommandMsg{5, behave(K::hold, sim::kNoAgent, {}, 0, K::pursue, true)});
  expect_client_round_trip(
      CommandMsg{6, behave(K::hold, sim::kNoAgent, {3, 4}, 0, K::pursue, false)});
  expect_client_round_trip(CommandMsg{7, behave(K::idle, sim::kNoAgent, {}, 0, K::pursue, false)});
  expect_client_round_trip(CommandMsg{8, behave(K::attack, 3, {}, 0, K::pursue, false)});
  expect_client_round_trip(CommandMsg{9, behave(K::seek, 3, {}, 0, K::pursue, false)});
  expect_client_round_trip(
      CommandMsg{9, behave(K::patrol, sim::kNoAgent, {7, 8}, 0, K::pursue, false)});
  expect_client_round_trip(CommandMsg{10, sim::SetMovement{{true, {}}, sim::Movement::kinematic}});
  expect_client_round_trip(CommandMsg{11, sim::AddObstacle{{10.5, 20.25}, 12}});
  expect_client_round_trip(CommandMsg{12, sim::RemoveObstacle{4}});
  sim::SetAvoidance av;
  av.mode = sim::AvoidanceMode::circle;
  av.personal_space = 2;
  av.cardioid_exponent = 1;
  av.preferred_side = sim::Side::left;
  av.split_fix = sim::SplitFixMode::seed;
  av.push_epsilon = 0.1;
  av.crossing = false;
  av.crossing_activation = 0.5;
  av.lookahead = 1.5;
  expect_client_round_trip(CommandMsg{13, av});
  expect_client_round_trip(Inspect{{1, 2, 3}});
  sim::TileMapDef map{3,
                      2,
                      25,
                      {sim::kBlocked, sim::kWalkable, sim::kWalkable, sim::kWalkable, sim::kBlocked,
                       sim::kWalkable}};
  expect_client_round_trip(CommandMsg{14, sim::LoadMap{map}});
  expect_client_round_trip(CommandMsg{15, sim::ClearMap{}});
  expect_client_round_trip(CommandMsg{16, sim::SetTiles{{{{1, 2}, true}, {{0, 0}, false}}}});
  expect_client_round_trip(CommandMsg{17, sim::SetPathing{{false, {4}}, sim::Pathing::astar, 4}});
  expect_client_round_trip(CommandMsg{
      18, sim::SetTarget{{false, {4}}, {}, sim::BehaviourKind::arrive, sim::TileCoord{7, 9}}});
  auto by_tile = behave(K::arrive, sim::kNoAgent, {}, 0, K::pursue, false);
  by_tile.target_tile = sim::TileCoord{3, 1};
  expect_client_round_trip(CommandMsg{19, by_tile});
  sim::Selection by_group;
  by_group.group = 3;
  sim::Selection in_rect;
  in_rect.rect = sim::Rect{{1, 2}, {30, 40}};
  in_rect.group = 1;
  sim::FormationDef blocks;
  blocks.shape = sim::Shape::block;
  blocks.centre = {400, 300};
  blocks.count = 2;
  blocks.columns = 4;
  blocks.spacing = 32;
  blocks.facing = 45;
  blocks.regroup = true;
  blocks.assignment = sim::SlotAssignment::shuffle;
  expect_client_round_trip(CommandMsg{20, sim::Form{by_group, blocks}});
  sim::FormationDef lines;
  lines.shape = sim::Shape::lines;
  lines.vertical = true;
  lines.count = 3;
  lines.assignment = sim::SlotAssignment::keep_order;
  expect_client_round_trip(CommandMsg{21, sim::Form{in_rect, lines}});
  sim::FormationDef circle;
  circle.radius = 90;
  expect_client_round_trip(CommandMsg{22, sim::Form{{true, {}}, circle}});
  expect_client_round_trip(CommandMsg{23, sim::Demo{{true, {}}, sim::DemoMove::opposite, 4}});
  expect_client_round_trip(CommandMsg{24, sim::Demo{{false, {1, 2}}, sim::DemoMove::invert, 3}});
  expect_client_round_trip(CommandMsg{25, sim::SetGroup{by_group, 9}});
  expect_client_round_trip(CommandMsg{26, sim::Remove{{false, {3, 4}}}});
  expect_client_round_trip(ControlMsg{27, Pause{}});
  expect_client_round_trip(ControlMsg{28, Resume{}});
  expect_client_round_trip(ControlMsg{29, StepTicks{7}});
  expect_client_round_trip(ControlMsg{30, Reset{std::uint64_t{5}}});
  expect_client_round_trip(ControlMsg{31, Reset{}});
  expect_client_round_trip(ControlMsg{32, LoadScenario{"maze", std::uint64_t{3}}});
  expect_client_round_trip(ControlMsg{33, SetParam{30.0, 10.0}});
  expect_client_round_trip(ControlMsg{34, Kick{kMaxSessionId}});
  expect_client_round_trip(SessionsRequest{35});
  expect_client_round_trip(Inspect{{}});
}

// The operator's list: every field written, those not known yet left out, and read back whole.
TEST(ServerCodec, SessionListRoundTripsWithItsOptionalFields) {
  SessionList list;
  list.seq = 9;
  list.omitted = 2;
  SessionInfo known;
  known.id = 3;
  known.role = Role::commander;
  known.format = SnapshotFormat::automatic;
  known.client = "herd-\"ctl\"";
  known.address = "127.0.0.1:4000";
  known.connected_s = 12.5;
  known.bytes_sent = 1u << 20;
  known.snapshots_sent = 600;
  known.dropped = 4;
  known.rtt_ms = 0.25;
  known.you = true;
  SessionInfo fresh;
  fresh.id = 4;
  fresh.address = "127.0.0.1:4001";
  list.sessions = {known, fresh};
  const std::string text = encode(list);
  EXPECT_EQ(text.find("\"role\"", text.find("\"id\":4")), std::string::npos) << text;
  EXPECT_EQ(text.find("rtt_ms", text.find("\"id\":4")), std::string::npos) << text;
  const auto back = decode_server(text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(back)) << std::get<Error>(back).message;
  ASSERT_TRUE(std::holds_alternative<SessionList>(std::get<ServerMessage>(back)));
  EXPECT_EQ(std::get<SessionList>(std::get<ServerMessage>(back)), list) << text;
}

TEST(ServerCodec, SnapshotCarriesBehavioursObstaclesCollisionsAndTraces) {
  sim::World world(sim::WorldDef{});
  sim::SpawnAgent a, b;
  a.position = {100, 300};
  a.target = sim::Vec2{700, 300};
  b.position = {700, 300};
  b.target = sim::Vec2{100, 300};
  ASSERT_TRUE(world.apply(sim::Spawn{0, 0, {a, b}}).ok());
  ASSERT_TRUE(world.apply(sim::AddObstacle{{400, 100}, 20}).ok());
  world.set_inspected({1, 99});
  std::vector<sim::CollisionEvent> hits{{1, 2, false, {400, 300}, 12.5}};
  for (int i = 0; i < 150; ++i) world.step();
  // The shared text has no traces; a session inspecting 1 and 99 is sent it with its own end.
  std::string text = encode_snapshot(world, hits);
  EXPECT_EQ(text.find(R"("inspect")"), std::string::npos);
  const std::vector<std::uint32_t> asked{99, 1};
  const std::string own = inspect_suffix(inspect_texts(world), asked);
  EXPECT_EQ(inspect_suffix(inspect_texts(world), std::vector<std::uint32_t>{2}), "")
      << "agent 2 is not traced: nothing of its own";
  text.pop_back();  // the closing brace, in whose place the session's end is written
  const auto decoded = decode_server(text + own);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded)) << std::get<Error>(decoded).message;
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  EXPECT_EQ(snap.avoidance, sim::AvoidanceMode::cardioid);
  ASSERT_EQ(snap.agents.size(), 2u);
  EXPECT_EQ(snap.agents[0].behaviour, sim::BehaviourKind::arrive);
  ASSERT_TRUE(snap.obstacles);
  ASSERT_EQ(snap.obstacles->size(), 1u);
  EXPECT_EQ((*snap.obstacles)[0].r, 20);
  EXPECT_EQ(encode(snap), text + own) << "the same text as the protocol's encoder";
  ASSERT_EQ(snap.collisions.size(), 1u);
  EXPECT_EQ(snap.collisions[0].impulse, 12.5);
  ASSERT_EQ(snap.inspect.size(), 1u) << "only agents that exist are traced";
  const InspectState& t = snap.inspect[0];
  EXPECT_EQ(t.id, 1u);
  EXPECT_NEAR(t.desired.x, 1, 1e-3);
  const auto from_agent_2 = std::find_if(t.pushes.begin(), t.pushes.end(), [](const PushState& p) {
    return p.id == 2 && !p.obstacle;
  });
  ASSERT_NE(from_agent_2, t.pushes.end()) << "agent 2 comes head on";
  EXPECT_TRUE(from_agent_2->crossing) << "a mover close ahead goes through the crossing fix";
  EXPECT_NEAR(length(t.final_dir), 1, 2e-3);
}

TEST(ClientCodec, ErrorsCarryTheSeqOnceItIsKnown) {
  const Error e = decode_err(
      R"({"type":"command","seq":42,"cmd":"set_target","agents":"all","target":{"x":"a","y":1}})");
  EXPECT_EQ(e.code, ErrorCode::bad_field);
  EXPECT_EQ(e.seq, 42u);
  EXPECT_NE(e.message.find("target.x"), std::string::npos) << e.message;
  EXPECT_EQ(decode_err(R"({"type":"command","cmd":"spawn","count":1})").seq, std::nullopt);
}

TEST(ClientCodec, MessagesNameTheField) {
  EXPECT_NE(
      decode_err(R"({"type":"command","seq":1,"cmd":"spawn","agents":[{"x":1,"y":1},{"x":1}]})")
          .message.find("agents[1].y"),
      std::string::npos);
  EXPECT_NE(
      decode_err(
          R"({"type":"command","seq":1,"cmd":"set_target","agents":[1,2,-3],"target":{"x":1,"y":1}})")
          .message.find("agents[2]"),
      std::string::npos);
  EXPECT_NE(decode_err(R"({"type":"hello","protocol":1,"role":"viewer","extra":1})")
                .message.find("'extra' is not a known field"),
            std::string::npos);
}

TEST(ClientCodec, RawBytesThatAreNotUtf8AreBadJson) {
  EXPECT_EQ(
      decode_err("{\"type\":\"hello\",\"protocol\":1,\"role\":\"viewer\",\"client\":\"\xff\xfe\"}")
          .code,
      ErrorCode::bad_json);
  EXPECT_EQ(
      decode_err("{\"type\":\"hello\",\"protocol\":1,\"role\":\"viewer\",\"client\":\"\xe2\x82\"}")
          .code,
      ErrorCode::bad_json);
  EXPECT_EQ(decode_err(std::string("{\"type\":\"ping\",\"id\":1}\0", 21)).code,
            ErrorCode::bad_json);
  EXPECT_EQ(decode_err("").code, ErrorCode::bad_json);
}

// A patrol goes between where each agent is and a point: without the point there is no patrol,
// and it cannot take an agent.
TEST(ClientCodec, APatrolNeedsItsPoint) {
  const std::string head = R"({"type":"command","seq":1,"cmd":"set_behaviour","agents":[1],)"
                           R"("behaviour":"patrol")";
  const Error none = decode_err(head + "}");
  EXPECT_EQ(none.code, ErrorCode::bad_field);
  EXPECT_NE(none.message.find("'target'"), std::string::npos) << none.message;
  EXPECT_EQ(decode_err(head + R"(,"agent":2})").code, ErrorCode::bad_field);
  EXPECT_TRUE(
      std::holds_alternative<ClientMessage>(decode_client(head + R"(,"target":{"x":5,"y":6}})")));
  EXPECT_TRUE(std::holds_alternative<ClientMessage>(
      decode_client(head + R"(,"target_tile":{"x":5,"y":6}})")));
}

TEST(ClientCodec, IdsAtTheLimitAreAcceptedAndBeyondRefused) {
  std::string ids;
  for (int i = 0; i < 10000; ++i) {
    if (i) ids += ',';
    ids += std::to_string(i);
  }
  const std::string at_limit = R"({"type":"command","seq":1,"cmd":"set_target","agents":[)" + ids +
                               R"(],"target":{"x":1,"y":1}})";
  EXPECT_TRUE(std::holds_alternative<ClientMessage>(decode_client(at_limit)));
  const std::string over = R"({"type":"command","seq":1,"cmd":"set_target","agents":[)" + ids +
                           R"(,1],"target":{"x":1,"y":1}})";
  EXPECT_EQ(decode_err(over).code, ErrorCode::bad_field);
}

TEST(ServerCodec, RoundTripsEveryMessage) {
  const Welcome w{1,     "herd/0.1.0", 4,          Role::commander, 60,    20,
                  0.017, 1200,         {800, 600}, 65536,           20000, {}};
  const Ack spawn_ack{9, 1204, {}, std::vector<std::uint32_t>{41, 42}, {}, {}};
  const Ack target_ack{7, 1204, 2u, {}, {}, {}};
  const Error err{7, ErrorCode::unknown_agent, "agent 99 does not exist \"quoted\"\n"};
  const Error err_no_seq{{}, ErrorCode::bad_json, "x"};
  const Pong pong{3, 1205};
  const ServerMessage messages[] = {w, spawn_ack, target_ack, err, err_no_seq, pong};
  for (const ServerMessage& m : messages) {
    const std::string text = std::visit([](const auto& v) { return encode(v); }, m);
    const auto back = decode_server(text);
    ASSERT_TRUE(std::holds_alternative<ServerMessage>(back))
        << text << " " << std::get<Error>(back).message;
    EXPECT_EQ(std::get<ServerMessage>(back), m) << text;
  }
}

// The scenario bar's fields: the running scenario, the names load_scenario takes, and the pause.
TEST(ServerCodec, WelcomeCarriesTheScenarioItsChoicesAndThePause) {
  Welcome w{1, "herd/0.1.0", 4, Role::viewer, 60, 20, 0.017, 1200, {800, 600}, 65536, 20000, {}};
  w.scenario = "demo32";
  w.scenarios = {"default", "demo32", "maze"};
  w.paused = true;
  w.description = "thirty-two in a ring";
  w.descriptions = {{"demo32", "thirty-two in a ring"}, {"maze", "a \"maze\""}};
  const std::string text = encode(w);
  EXPECT_NE(text.find(R"("description":"thirty-two in a ring")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("descriptions":{"demo32":"thirty-two in a ring","maze":"a \"maze\""})"),
            std::string::npos)
      << text;
  w.description.clear();
  w.descriptions.clear();
  const std::string plain = encode(w);
  EXPECT_EQ(plain.find("description"), std::string::npos) << "none: not told";
  w.description = "thirty-two in a ring";
  w.descriptions = {{"demo32", "thirty-two in a ring"}, {"maze", "a \"maze\""}};
  EXPECT_NE(
      plain.find(R"("scenario":"demo32","scenarios":["default","demo32","maze"],"paused":true)"),
      std::string::npos)
      << plain;
  const auto back = decode_server(text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(back)) << std::get<Error>(back).message;
  EXPECT_EQ(std::get<Welcome>(std::get<ServerMessage>(back)), w);
  // A server that cannot load scenarios says so with an empty list; the name is left out when
  // unknown.
  const Welcome bare{1, "herd/0.1.0", 4,     Role::viewer, 60, 20, 0.017,
                     0, {800, 600},   65536, 20000,        {}};
  EXPECT_NE(encode(bare).find(R"("scenarios":[],"paused":false})"), std::string::npos)
      << encode(bare);
  EXPECT_EQ(encode(bare).find(R"("scenario":)"), std::string::npos);
  // The list is an array of strings, and nothing else.
  const std::string head =
      R"({"type":"welcome","protocol":1,"server":"s","session":1,"role":"viewer","tick_rate":60,)"
      R"("snapshot_rate":20,"dt":0.017,"tick":0,"world":{"width":1,"height":1},)"
      R"("limits":{"max_message_bytes":1,"max_agents":1},)";
  for (const char* bad : {R"("scenarios":"maze"})", R"("scenarios":["maze",3]})", R"("paused":1})",
                          R"("scenario":7})"}) {
    const auto d = decode_server(head + bad);
    ASSERT_TRUE(std::holds_alternative<Error>(d)) << bad;
    EXPECT_EQ(std::get<Error>(d).code, ErrorCode::bad_field) << bad;
  }
}

TEST(ServerCodec, AWelcomeInTwoPartsIsTheWholeWelcome) {
  Welcome w{1, "herd/0.1.0", 4, Role::commander, 60, 20, 0.017, 1200, {800, 600}, 65536, 20000, {}};
  w.scenario = "maze";
  w.scenarios = {"maze", "default"};
  w.paused = true;
  const std::string head = encode_welcome_head(w), tail = encode_welcome_tail(w);
  EXPECT_EQ(head + tail, encode(w));
  EXPECT_EQ(head.find("tick_rate"), std::string::npos) << "only what differs between sessions";
  EXPECT_EQ(tail.find("session"), std::string::npos);
  const auto back = decode_server(head + tail);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(back));
  EXPECT_EQ(std::get<Welcome>(std::get<ServerMessage>(back)), w);
}

// A snapshot's serial (the server's count of snapshots made) and each agent's subject (the other
// agent its behaviour names): what the viewer counts dropped snapshots and marks roles with.
TEST(ServerCodec, SnapshotCarriesItsSerialAndEachAgentsSubject) {
  sim::World world(sim::WorldDef{});
  ASSERT_TRUE(world.apply(sim::Spawn{3, 0, {}}).ok());
  sim::SetBehaviour hunt;
  hunt.agents = {false, {1}};
  hunt.behaviour.kind = sim::BehaviourKind::pursue;
  hunt.behaviour.agent = 2;
  ASSERT_TRUE(world.apply(hunt).ok());
  world.step();
  const std::string text = encode_snapshot(world, {}, {}, 41);
  EXPECT_EQ(text.rfind(R"({"type":"snapshot","tick":1,"serial":41,)", 0), 0u) << text.substr(0, 80);
  const auto decoded = decode_server(text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded)) << std::get<Error>(decoded).message;
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  EXPECT_EQ(snap.serial, 41u);
  ASSERT_EQ(snap.agents.size(), 3u);
  EXPECT_EQ(snap.agents[0].subject, std::optional<std::uint32_t>(2));
  EXPECT_EQ(snap.agents[1].subject, std::nullopt) << "no behaviour names another agent";
  EXPECT_EQ(encode(snap), text) << "decodes and encodes back byte for byte";
  EXPECT_EQ(encode_snapshot(world).find(R"("serial")"), std::string::npos) << "0: not told";
}

// A stalled agent's reason, seconds and the agents responsible: in the snapshot only while it is
// stalled, decoded back byte for byte; a reason the protocol does not name, or seconds or ids
// without a reason, are refused.
TEST(ServerCodec, SnapshotCarriesAStalledAgentsReason) {
  sim::World world(sim::WorldDef{});
  sim::SetAvoidance none;
  none.mode = sim::AvoidanceMode::none;
  ASSERT_TRUE(world.apply(none).ok());
  ASSERT_TRUE(world.apply(sim::AddWall{{{300, 200}, {300, 400}}, false}).ok());
  sim::SpawnAgent mover, idle;
  mover.position = {200, 300};
  mover.target = sim::Vec2{400, 300};
  idle.position = {100, 500};
  ASSERT_TRUE(world.apply(sim::Spawn{0, 0, {mover, idle}}).ok());
  for (int t = 0; t < 60; ++t) world.step();
  EXPECT_EQ(encode_snapshot(world).find(R"("stall")"), std::string::npos) << "not yet 2 s";
  for (int t = 0; t < 200; ++t) world.step();
  const std::string text = encode_snapshot(world);
  EXPECT_NE(text.find(R"("stall":"blocked","stall_for":)"), std::string::npos) << text;
  const auto decoded = decode_server(text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded)) << std::get<Error>(decoded).message;
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  ASSERT_EQ(snap.agents.size(), 2u);
  EXPECT_EQ(snap.agents[0].stall, sim::StallReason::blocked);
  EXPECT_GT(snap.agents[0].stall_for, 2.0);
  EXPECT_EQ(snap.agents[1].stall, sim::StallReason::none) << "standing is not stalling";
  EXPECT_EQ(encode(snap), text) << "decodes and encodes back byte for byte";

  Snapshot pinned;
  AgentState a;
  a.id = 7;
  a.stall = sim::StallReason::pinned;
  a.stall_for = 2.5;
  a.stall_by = {3, 9};
  pinned.agents = {a};
  const std::string pinned_text = encode(pinned);
  EXPECT_NE(pinned_text.find(R"("stall":"pinned","stall_for":2.5,"stall_by":[3,9])"),
            std::string::npos)
      << pinned_text;
  const auto back = decode_server(pinned_text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(back)) << std::get<Error>(back).message;
  EXPECT_EQ(std::get<Snapshot>(std::get<ServerMessage>(back)).agents.at(0), a);
  for (const char* bad :
       {R"("stall":"stuck","stall_for":3)", R"("stall":"none","stall_for":3)", R"("stall_for":3)",
        R"("stall":"pinned")", R"("stall":"pinned","stall_for":3,"stall_by":[1,2,3,4,5])"}) {
    const std::string agent = std::string(R"({"type":"snapshot","tick":1,"time":0.1,)") +
                              R"("avoidance":"cardioid","agents":[{"id":1,"x":1,"y":1,"vx":0,)" +
                              R"("vy":0,"r":8,"group":0,"state":"moving","behaviour":"arrive",)" +
                              bad + "}]}";
    EXPECT_FALSE(std::holds_alternative<ServerMessage>(decode_server(agent))) << bad;
  }
}

// An inspected stalled agent's trace says its stall as its object does, and reads back.
TEST(ServerCodec, AnInspectedStalledAgentsTraceCarriesItsStall) {
  sim::World world(sim::WorldDef{});
  sim::SetAvoidance none;  // its trace is then its wish alone (PROTOCOL.md, inspect)
  none.mode = sim::AvoidanceMode::none;
  ASSERT_TRUE(world.apply(none).ok());
  ASSERT_TRUE(world.apply(sim::AddWall{{{300, 200}, {300, 400}}, false}).ok());
  sim::SpawnAgent mover;
  mover.position = {200, 300};
  mover.target = sim::Vec2{400, 300};
  ASSERT_TRUE(world.apply(sim::Spawn{0, 0, {mover}}).ok());
  world.set_inspected({1});
  for (int i = 0; i < 400; ++i) world.step();
  ASSERT_TRUE(world.stalls()[0].stalled()) << "pressed against the wall for over 2 s";
  std::string text = encode_snapshot(world);
  text.pop_back();
  const std::string own = inspect_suffix(inspect_texts(world), std::vector<std::uint32_t>{1});
  EXPECT_NE(own.find(R"("stall":"blocked","stall_for":)"), std::string::npos) << own;
  const auto decoded = decode_server(text + own);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded)) << std::get<Error>(decoded).message;
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  ASSERT_EQ(snap.inspect.size(), 1u);
  EXPECT_EQ(snap.inspect[0].stall, sim::StallReason::blocked);
  EXPECT_EQ(snap.inspect[0].stall_for, snap.agents.at(0).stall_for);
  EXPECT_EQ(encode(snap), text + own) << "the same text as the protocol's encoder";
}

// Avoidance priority, layer and mask: a spawn's (each agent's, or a count spawn's for all) round
// trip; the snapshot carries an agent's only when they are not the defaults, and decodes them
// back byte for byte; set_avoidance takes mode orca.
TEST(ClientCodec, SpawnsCarryPriorityLayerAndMask) {
  sim::SpawnAgent a;
  a.position = {1, 2};
  a.priority = 0;
  a.layer = 2;
  a.mask = 0xFFFFFFFE;
  sim::SpawnAgent b;
  b.position = {3, 4};
  b.priority = 99;
  expect_client_round_trip(CommandMsg{1, sim::Spawn{0, 0, {a, b}}});
  sim::Spawn count{5, 1, {}};
  count.priority = 7;
  count.mask = 0;
  expect_client_round_trip(CommandMsg{2, count});
  const auto spawn = std::get<sim::Spawn>(
      std::get<CommandMsg>(decode_ok(R"({"type":"command","seq":3,"cmd":"spawn","count":2,)"
                                     R"("priority":10,"layer":4294967295,"mask":6})"))
          .command);
  EXPECT_EQ(spawn.priority, std::optional<std::uint8_t>(10));
  EXPECT_EQ(spawn.layer, std::optional<std::uint32_t>(0xFFFFFFFF));
  EXPECT_EQ(spawn.mask, std::optional<std::uint32_t>(6));
  sim::SetAvoidance orca;
  orca.mode = sim::AvoidanceMode::orca;
  expect_client_round_trip(CommandMsg{4, orca});
  for (const char* bad :
       {R"("agents":[{"x":1,"y":1,"priority":100}])", R"("agents":[{"x":1,"y":1,"layer":-1}])",
        R"("agents":[{"x":1,"y":1,"mask":4294967296}])", R"("count":1,"priority":0.5)",
        R"("count":1,"mask":"all")", R"("agents":[{"x":1,"y":1}],"priority":1)"}) {
    const Error e =
        decode_err(std::string(R"({"type":"command","seq":5,"cmd":"spawn",)") + bad + "}");
    EXPECT_EQ(e.code, ErrorCode::bad_field) << bad;
  }
  EXPECT_EQ(decode_err(R"({"type":"command","seq":6,"cmd":"set_avoidance","mode":"rvo"})").code,
            ErrorCode::bad_field);
}

TEST(ServerCodec, SnapshotCarriesPriorityLayerAndMaskWhenNotTheDefaults) {
  sim::World world(sim::WorldDef{});
  sim::SpawnAgent plain, ranked;
  plain.position = {100, 100};
  ranked.position = {200, 200};
  ranked.priority = 3;
  ranked.layer = 8;
  ranked.mask = 9;
  ASSERT_TRUE(world.apply(sim::Spawn{0, 0, {plain, ranked}}).ok());
  sim::SetAvoidance orca;
  orca.mode = sim::AvoidanceMode::orca;
  ASSERT_TRUE(world.apply(orca).ok());
  world.step();
  const std::string text = encode_snapshot(world);
  EXPECT_NE(text.find(R"("avoidance":"orca")"), std::string::npos);
  EXPECT_NE(text.find(R"("priority":3,"layer":8,"mask":9)"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"("priority":50)"), std::string::npos) << "the default is left out";
  const auto decoded = decode_server(text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded)) << std::get<Error>(decoded).message;
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  EXPECT_EQ(snap.avoidance, sim::AvoidanceMode::orca);
  ASSERT_EQ(snap.agents.size(), 2u);
  EXPECT_EQ(snap.agents[0].priority, 50);
  EXPECT_EQ(snap.agents[0].mask, 0xFFFFFFFFu);
  EXPECT_EQ(snap.agents[1].priority, 3);
  EXPECT_EQ(snap.agents[1].layer, 8u);
  EXPECT_EQ(snap.agents[1].mask, 9u);
  EXPECT_EQ(encode(snap), text) << "decodes and encodes back byte for byte";
}

// A formation's places that cannot be reached: in the snapshot with the agent, the place, the
// reason and where the agent goes instead; decoded and encoded back byte for byte.
TEST(ServerCodec, SnapshotNamesAFormationsUnreachablePlaces) {
  sim::World world(sim::WorldDef{});
  ASSERT_TRUE(world.apply(sim::Spawn{4, 0, {}}).ok());
  sim::Form form;
  form.agents.all = true;
  form.def.shape = sim::Shape::line;
  form.def.centre = {400, 300};
  form.def.spacing = 40;
  form.def.assignment = sim::SlotAssignment::keep_order;
  ASSERT_TRUE(world.apply(form).ok());
  ASSERT_TRUE(world.apply(sim::AddObstacle{{380, 300}, 10}).ok());  // on agent 2's place
  world.step();
  const std::string text = encode_snapshot(world, {});
  EXPECT_NE(text.find(R"("unreachable":[{"agent":2,"x":380,"y":300,"reason":"obstacle","to":{)"),
            std::string::npos)
      << text;
  const auto decoded = decode_server(text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded)) << std::get<Error>(decoded).message;
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  ASSERT_EQ(snap.formations.size(), 1u);
  ASSERT_EQ(snap.formations[0].unreachable.size(), 1u);
  EXPECT_EQ(snap.formations[0].unreachable[0].agent, 2u);
  EXPECT_FALSE(snap.formations[0].unreachable[0].no_path);
  EXPECT_TRUE(snap.formations[0].unreachable[0].to_x.has_value());
  EXPECT_EQ(encode(snap), text) << "decodes and encodes back byte for byte";
}

TEST(ServerCodec, SnapshotOfAWorldRoundTripsWithinTheWirePrecision) {
  sim::World world(sim::WorldDef{});
  ASSERT_TRUE(world.apply(sim::Spawn{25, 2, {}}).ok());
  ASSERT_TRUE(world
                  .apply(sim::SetTarget{
                      {false, {3, 4}}, {123.456789, 7.0001}, sim::BehaviourKind::arrive, {}})
                  .ok());
  for (int i = 0; i < 17; ++i) world.step();
  const auto decoded = decode_server(encode_snapshot(world));
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded));
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  EXPECT_EQ(snap.tick, 17u);
  EXPECT_NEAR(snap.time, world.time(), 0.0005);
  ASSERT_EQ(snap.agents.size(), 25u);
  for (std::size_t i = 0; i < 25; ++i) {
    const sim::Agent& a = world.agents()[i];
    const AgentState& s = snap.agents[i];
    EXPECT_EQ(s.id, a.id);
    EXPECT_NEAR(s.x, a.position.x, 0.0005);
    EXPECT_NEAR(s.y, a.position.y, 0.0005);
    EXPECT_NEAR(s.vx, a.velocity.x, 0.0005);
    EXPECT_NEAR(s.vy, a.velocity.y, 0.0005);
    EXPECT_EQ(s.r, a.def.radius);
    EXPECT_EQ(s.group, 2);
    EXPECT_EQ(s.state, a.state);
    EXPECT_EQ(s.target.has_value(), a.id == 3 || a.id == 4);
  }
}

TEST(ServerCodec, AnAgentWaitingInThePathQueueIsReportedPending) {
  sim::WorldDef def;
  def.path_expansions_per_tick = 1;  // one tile a tick: the second agent's request must wait
  sim::World world(def);
  sim::TileMapDef m{20, 15, 40, std::vector<std::uint8_t>(20 * 15, 0)};
  ASSERT_TRUE(world.apply(sim::LoadMap{m}).ok());
  ASSERT_TRUE(world.apply(sim::Spawn{2, 0, {}}).ok());
  ASSERT_TRUE(world.apply(sim::SetPathing{{true, {}}, sim::Pathing::astar, 8}).ok());
  ASSERT_TRUE(
      world.apply(sim::SetTarget{{true, {}}, {700, 500}, sim::BehaviourKind::arrive, {}}).ok());
  world.step();
  const std::string text = encode_snapshot(world);
  EXPECT_NE(text.find(R"("path":"pending")"), std::string::npos) << text;
  const auto decoded = decode_server(text);
  ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded));
  const auto& snap = std::get<Snapshot>(std::get<ServerMessage>(decoded));
  ASSERT_EQ(snap.agents.size(), 2u);
  EXPECT_TRUE(snap.agents[0].path_pending && snap.agents[1].path_pending);
  for (int t = 0; t < 200; ++t) world.step();
  EXPECT_EQ(encode_snapshot(world).find(R"("path")"), std::string::npos)
      << "both paths are known by now";
}

TEST(ServerCodec, OutcomesBecomeAckOrError) {
  sim::CommandOutcome spawned;
  spawned.origin = {1, 5};
  spawned.tick = 10;
  spawned.spawned = {7, 8};
  EXPECT_EQ(encode_outcome(spawned), R"({"type":"ack","seq":5,"tick":10,"agents":[7,8]})");
  sim::CommandOutcome targeted;
  targeted.origin = {1, 6};
  targeted.tick = 11;
  targeted.affected = 0;
  EXPECT_EQ(encode_outcome(targeted), R"({"type":"ack","seq":6,"tick":11,"count":0})");
  sim::CommandOutcome failed;
  failed.origin = {1, 7};
  failed.error = sim::CommandError::limit_exceeded;
  failed.message = "too many";
  EXPECT_EQ(encode_outcome(failed),
            R"({"type":"error","seq":7,"code":"limit_exceeded","message":"too many"})");
}

TEST(ErrorCodes, NamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::binary_not_supported); ++i) {
    const auto code = static_cast<ErrorCode>(i);
    EXPECT_EQ(error_code_from_string(to_string(code)), code);
  }
  EXPECT_EQ(error_code_from_string("nope"), std::nullopt);
}

}  // namespace
}  // namespace herd::protocol
