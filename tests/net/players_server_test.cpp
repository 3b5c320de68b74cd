// Players, teams and fog of war over the wire, against the real server driven by hand (pause,
// step): roles and their welcomes, what a player's commands may do (not_yours, forbidden, an
// unseen enemy answered as an id that does not exist), every snapshot a player receives holding
// exactly what its team sees at that tick (checked against the operator's), and spectators
// watching the world of the delay before; the same for binary frames (keyframes and deltas, with
// and without a viewport), decoded as a client does and acknowledged; and a relay without the
// operator's token serving its viewers that delayed stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "net/relay_world.hpp"
#include "protocol/snapshot_binary.hpp"

#include "server_fixture.hpp"

namespace herd::net {
namespace {

constexpr const char* kOperatorToken = "operator-token-0123456789";
constexpr const char* kRedToken = "red-token-0123456789";
constexpr const char* kBlueToken = "blue-token-0123456789";
constexpr double kDelay = 0.5;  // s of world time: 60 ticks at the fixture's 120

class PlayersServerTest : public SteppedServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    SteppedServerTest::configure(config, def);
    config.command_token = kOperatorToken;
    config.players = {{"red", 1, kRedToken}, {"blue", 2, kBlueToken}};
    // Red's spawns land on the left and it holds 8 agents at most; blue has no rules of its own.
    config.teams[1] = sim::TeamRules{8, sim::Rect{{0, 0}, {200, 600}}};
    config.team_colours = {{1, "#d04040"}, {2, "#4060e0"}};
    config.spectator_delay = kDelay;
  }
  void SetUp() override {
    ServerTest::SetUp();
    c_ = hello(R"({"type":"hello","protocol":1,"role":"operator","token":")" +
                   std::string(kOperatorToken) + R"("})",
               &operator_welcome_);
    ok(R"({"cmd":"pause"})");
  }
  // A client that sent `text` as its hello; its welcome's text and value.
  std::unique_ptr<WsClient> hello(const std::string& text, protocol::Welcome* welcome = nullptr,
                                  std::string* raw = nullptr) {
    auto c = connect();
    c->send(text);
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto got = c->receive(Millis(200));
      if (!got || got->find(R"("type":"welcome")") == std::string::npos) continue;
      if (raw) *raw = *got;
      if (welcome)
        *welcome = std::get<protocol::Welcome>(
            std::get<protocol::ServerMessage>(protocol::decode_server(*got)));
      return c;
    }
    ADD_FAILURE() << "no welcome";
    return c;
  }
  std::unique_ptr<WsClient> player(const char* token, protocol::Welcome* welcome = nullptr) {
    return hello(
        R"({"type":"hello","protocol":1,"role":"player","token":")" + std::string(token) + R"("})",
        welcome);
  }
  // The code `c` is refused with for the command `text`.
  protocol::Error refused_to(WsClient& c, const std::string& text) {
    const std::uint32_t seq = ++seq_;
    c.send(with_seq(text, seq));
    return wait_for<protocol::Error>(c, [&](const auto& e) { return e.seq == seq; });
  }
  protocol::Ack ack_to(WsClient& c, const std::string& text) {
    const std::uint32_t seq = ++seq_;
    c.send(with_seq(text, seq));
    return wait_for<protocol::Ack>(c, [&](const auto& a) { return a.seq == seq; });
  }
  // Steps `ticks` ticks and keeps every snapshot the operator is sent meanwhile (a step runs in
  // slices, each of which may end in a snapshot) in `truth`; the last one's tick.
  std::uint64_t step_keeping(int ticks, std::map<std::uint64_t, protocol::Snapshot>& truth) {
    const std::uint32_t seq = ++seq_;
    c_->send(with_seq(R"({"cmd":"step","ticks":)" + std::to_string(ticks) + "}", seq));
    std::optional<std::uint64_t> acked;
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto got = c_->receive(Millis(200));
      if (!got) continue;
      auto decoded = protocol::decode_server(*got);
      if (!std::holds_alternative<ServerMessage>(decoded)) continue;
      const auto& msg = std::get<ServerMessage>(decoded);
      if (const auto* a = std::get_if<protocol::Ack>(&msg); a && a->seq == seq) acked = a->tick;
      if (const auto* snap = std::get_if<protocol::Snapshot>(&msg)) truth[snap->tick] = *snap;
      if (acked && truth.count(*acked)) return *acked;
    }
    ADD_FAILURE() << "step " << ticks << " was not answered with its snapshot";
    return 0;
  }
  std::vector<std::uint32_t> spawn(int team, double x, double y, const std::string& more = {}) {
    return *ok(R"({"cmd":"spawn","team":)" + std::to_string(team) + R"(,"agents":[{"x":)" +
               std::to_string(x) + R"(,"y":)" + std::to_string(y) + more + "}]}")
                .agents;
  }
  // Red's two (one with a short sight), blue's one, nobody's one, and blue's runner, which crosses
  // the world left to right past red's two: in sight, out, in again. The runner's id.
  std::uint32_t spawn_runner_scene() {
    spawn(1, 100, 300);
    spawn(1, 700, 300, R"(,"sight":50)");
    spawn(2, 400, 100);
    spawn(0, 400, 500);
    return spawn(2, 20, 310, R"(,"max_speed":400,"target":{"x":780,"y":310})")[0];
  }
  protocol::Welcome operator_welcome_;
};

// The agents team `team` sees in the operator's snapshot: its own, and those within the sight of
// one of them (200 unless the agent says).
std::set<std::uint32_t> visible(const protocol::Snapshot& s, std::uint8_t team) {
  std::set<std::uint32_t> out;
  for (const auto& a : s.agents) {
    bool seen = a.team == team;
    for (const auto& b : s.agents)
      if (!seen && b.team == team) seen = std::hypot(a.x - b.x, a.y - b.y) <= b.sight.value_or(200);
    if (seen) out.insert(a.id);
  }
  return out;
}

TEST_F(PlayersServerTest, RolesAreWelcomedWithWhoTheyAre) {
  EXPECT_EQ(operator_welcome_.role, protocol::Role::commander);
  EXPECT_TRUE(operator_welcome_.says_operator);
  protocol::Welcome w;
  auto red = player(kRedToken, &w);
  EXPECT_EQ(w.role, protocol::Role::player);
  EXPECT_EQ(w.player, "red");
  EXPECT_EQ(w.team, 1);
  auto watcher = hello(R"({"type":"hello","protocol":1,"role":"viewer"})", &w);
  EXPECT_EQ(w.role, protocol::Role::spectator) << "with players, a viewer is a spectator";
  auto spectator = hello(R"({"type":"hello","protocol":1,"role":"spectator"})", &w);
  EXPECT_EQ(w.role, protocol::Role::spectator);
  EXPECT_DOUBLE_EQ(w.delay, kDelay) << "a spectator is told how late its snapshots are";
  const std::vector<protocol::Welcome::TeamColour> colours = {{1, "#d04040"}, {2, "#4060e0"}};
  EXPECT_EQ(w.teams, colours) << "every welcome tells the teams' colours";
  EXPECT_EQ(operator_welcome_.teams, colours);
  EXPECT_EQ(operator_welcome_.delay, 0) << "the operator's snapshots are not late";
  auto commander = hello(R"({"type":"hello","protocol":1,"role":"commander","token":")" +
                             std::string(kOperatorToken) + R"("})",
                         &w);
  EXPECT_EQ(w.role, protocol::Role::commander);
  EXPECT_FALSE(w.says_operator) << "the alias is answered by its own name";
  // A wrong token watches, told why; the token is never echoed.
  auto guess = connect();
  guess->send(R"({"type":"hello","protocol":1,"role":"player","token":"not-a-token-of-anyone"})");
  const auto e = wait_for<protocol::Error>(*guess);
  EXPECT_EQ(e.code, protocol::ErrorCode::unauthorized);
  EXPECT_EQ(e.message.find("not-a-token"), std::string::npos);
  EXPECT_EQ(wait_for<protocol::Welcome>(*guess).role, protocol::Role::spectator);
  // The operator's sessions list names each player's session by player and team.
  const std::uint32_t seq = ++seq_;
  c_->send(R"({"type":"sessions","seq":)" + std::to_string(seq) + "}");
  const auto list =
      wait_for<protocol::SessionList>(*c_, [&](const auto& l) { return l.seq == seq; });
  const auto reds = std::count_if(list.sessions.begin(), list.sessions.end(), [](const auto& s) {
    return s.role == protocol::Role::player && s.player == "red" && s.team == 1;
  });
  EXPECT_EQ(reds, 1);
}

TEST_F(PlayersServerTest, APlayerCommandsItsOwnAgentsOnly) {
  const auto red1 = spawn(1, 100, 100)[0];
  spawn(1, 150, 100);
  const auto blue_near = spawn(2, 260, 100)[0];
  const auto blue_far = spawn(2, 700, 500)[0];
  auto red = player(kRedToken);
  // "all" is its own two.
  const auto all =
      ack_to(*red, R"({"cmd":"set_target","agents":"all","target":{"x":400,"y":300}})");
  ASSERT_TRUE(all.count);
  EXPECT_EQ(*all.count, 2u);
  // An enemy it sees is not its own; one it does not see does not exist, word for word.
  const auto id_text = [](std::uint32_t id) { return std::to_string(id); };
  EXPECT_EQ(refused_to(*red, R"({"cmd":"stop","agents":[)" + id_text(red1) + "," +
                                 id_text(blue_near) + "]}")
                .code,
            protocol::ErrorCode::not_yours);
  const auto unseen = refused_to(*red, R"({"cmd":"stop","agents":[)" + id_text(blue_far) + "]}");
  const auto missing = refused_to(*red, R"({"cmd":"stop","agents":[4000]})");
  EXPECT_EQ(unseen.code, protocol::ErrorCode::unknown_agent);
  EXPECT_EQ(missing.code, protocol::ErrorCode::unknown_agent);
  EXPECT_EQ(unseen.message, "agent " + id_text(blue_far) + " does not exist");
  EXPECT_EQ(missing.message, "agent 4000 does not exist");
  // The world's controls are the operator's.
  for (const char* text : {R"({"cmd":"resume"})", R"({"cmd":"step","ticks":1})",
                           R"({"cmd":"add_obstacle","x":500,"y":500,"radius":10})",
                           R"({"cmd":"set_avoidance","mode":"circle"})"})
    EXPECT_EQ(refused_to(*red, text).code, protocol::ErrorCode::forbidden) << text;
  // A spectator commands nothing.
  auto spectator = hello(R"({"type":"hello","protocol":1,"role":"spectator"})");
  EXPECT_EQ(refused_to(*spectator, R"({"cmd":"stop","agents":"all"})").code,
            protocol::ErrorCode::forbidden);
  // Nothing of the refused commands happened: blue still stands, red goes where it was sent.
  const protocol::Snapshot s = step(1);
  for (const auto& a : s.agents) {
    if (a.team == 2) EXPECT_EQ(a.behaviour, sim::BehaviourKind::idle) << a.id;
    if (a.team == 1) EXPECT_EQ(a.state, sim::MoveState::moving) << a.id;
  }
  EXPECT_TRUE(s.obstacles ? s.obstacles->empty() : true);
  // A player's spawn makes its team's agents.
  const auto spawned = ack_to(*red, R"({"cmd":"spawn","count":2})");
  ASSERT_TRUE(spawned.agents);
  const protocol::Snapshot after = step(1);
  for (const auto& a : after.agents)
    if (std::count(spawned.agents->begin(), spawned.agents->end(), a.id)) EXPECT_EQ(a.team, 1);
}

// A player's spawns keep to its team's rules: its units take the world's stats, land in its spawn
// area (or, without one, within its own agents' sight), and its team holds its share of the
// world at most, told in its own figures only. Before, a player chose sight 100000 (and saw every
// enemy), max_speed 10000, radius 100, priority 0 and mass 1e6, spawned a scout in the enemy's
// base, filled the world alone and read the others' count from the world's limit.
TEST_F(PlayersServerTest, APlayersSpawnsKeepToItsTeamsRules) {
  spawn(2, 700, 300);  // blue's one, to spawn beside
  auto red = player(kRedToken);
  auto blue = player(kBlueToken);
  for (const char* stat : {R"("sight":100000)", R"("max_speed":10000)", R"("radius":100)",
                           R"("priority":0)", R"("mass":1000000)", R"("movement":"kinematic")"})
    EXPECT_EQ(refused_to(
                  *red, R"({"cmd":"spawn","agents":[{"x":100,"y":300,)" + std::string(stat) + "}]}")
                  .code,
              protocol::ErrorCode::forbidden)
        << stat;
  EXPECT_EQ(refused_to(*red, R"({"cmd":"spawn","count":1,"sight":100000})").code,
            protocol::ErrorCode::forbidden);
  EXPECT_EQ(refused_to(*red, R"({"cmd":"spawn","agents":[{"x":650,"y":300}]})").code,
            protocol::ErrorCode::forbidden)
      << "in the enemy's base, outside red's spawn area";
  // A count spawn lands in the team's spawn area.
  const auto made = ack_to(*red, R"({"cmd":"spawn","count":5})");
  ASSERT_TRUE(made.agents);
  ASSERT_EQ(made.agents->size(), 5u);
  const protocol::Snapshot s = step(1);
  for (const auto& a : s.agents)
    if (std::count(made.agents->begin(), made.agents->end(), a.id)) {
      EXPECT_EQ(a.team, 1);
      EXPECT_LE(a.x, 200 + 1e-9);
    }
  // Red holds 5 of its 8; the refusal says so, not how many the world holds.
  const protocol::Error full = refused_to(*red, R"({"cmd":"spawn","count":4})");
  EXPECT_EQ(full.code, protocol::ErrorCode::limit_exceeded);
  EXPECT_NE(full.message.find("your team may hold 8 agents; it holds 5, room for 3 more"),
            std::string::npos)
      << full.message;
  // Blue has no spawn area: beside its own agent, within its sight, and not elsewhere.
  EXPECT_TRUE(ack_to(*blue, R"({"cmd":"spawn","agents":[{"x":750,"y":300}]})").agents);
  EXPECT_EQ(refused_to(*blue, R"({"cmd":"spawn","agents":[{"x":100,"y":300}]})").code,
            protocol::ErrorCode::forbidden);
  EXPECT_EQ(refused_to(*blue, R"({"cmd":"spawn","count":1})").code, protocol::ErrorCode::forbidden);
  EXPECT_EQ(step(1).agents.size(), 7u) << "nothing refused changed the world";
}

// An order on an enemy that leaves the team's sight becomes a move to where it was last seen: the
// pursuer's target stops following the enemy, in the world and in the player's snapshots. Before,
// an agent pursuing an enemy had tx/ty equal to the unseen enemy's position every snapshot.
TEST_F(PlayersServerTest, AnOrderOnAnEnemyInTheFogBecomesAMoveToWhereItWasLastSeen) {
  const auto hunter = spawn(1, 100, 300)[0];  // red, sight 200
  const auto runner = spawn(2, 250, 300, R"(,"max_speed":400)")[0];
  auto red = player(kRedToken);
  ack_to(*red, R"({"cmd":"set_behaviour","agents":[)" + std::to_string(hunter) +
                   R"(],"behaviour":"pursue","agent":)" + std::to_string(runner) + "}");
  ok(R"({"cmd":"set_target","agents":[)" + std::to_string(runner) +
     R"(],"target":{"x":780,"y":300}})");
  const auto find = [](const protocol::Snapshot& s, std::uint32_t id) {
    return std::find_if(s.agents.begin(), s.agents.end(),
                        [id](const protocol::AgentState& a) { return a.id == id; });
  };
  // Step until the runner is out of the hunter's sight, then on.
  protocol::Snapshot s;
  for (int t = 0; t < 60; ++t) {
    s = step(4);
    const auto h = find(s, hunter), r = find(s, runner);
    ASSERT_NE(h, s.agents.end());
    ASSERT_NE(r, s.agents.end());
    if (std::hypot(h->x - r->x, h->y - r->y) > 260) break;
  }
  const auto h = find(s, hunter);
  EXPECT_EQ(h->behaviour, sim::BehaviourKind::arrive) << "no longer pursuing";
  ASSERT_TRUE(h->target);
  const sim::Vec2 last_seen = *h->target;
  const protocol::Snapshot later = step(30);
  const auto h2 = find(later, hunter), r2 = find(later, runner);
  ASSERT_TRUE(h2->target);
  EXPECT_EQ(*h2->target, last_seen) << "the target stays where the runner was last seen";
  EXPECT_GT(std::hypot(r2->x - last_seen.x, r2->y - last_seen.y), 50) << "while the runner went on";
}

// Sight that walls block, and a team's memory: an enemy behind a wall is not in the player's
// snapshots while one in the open at the same distance is; no other team's agent carries its
// orders; an enemy that leaves the team's sight stays as a ghost where it was last seen, and the
// team's explored ground is told.
TEST_F(PlayersServerTest, AWallHidesAnEnemyAndOneLostFromSightStaysAGhostWhereItWasLastSeen) {
  ok(R"({"cmd":"add_wall","points":[{"x":300,"y":150},{"x":300,"y":450}]})");
  spawn(1, 200, 300);                         // red, sight 200
  const auto hidden = spawn(2, 380, 300)[0];  // 180 away, behind the wall
  const auto open = spawn(2, 200, 480)[0];    // 180 away, in the open
  auto red = player(kRedToken);
  const auto red_at = [&](std::uint64_t tick) {
    return wait_for<protocol::Snapshot>(*red, [&](const auto& s) { return s.tick >= tick; });
  };
  const auto has = [](const protocol::Snapshot& s, std::uint32_t id) {
    return std::any_of(s.agents.begin(), s.agents.end(),
                       [id](const auto& a) { return a.id == id; });
  };
  protocol::Snapshot seen = red_at(step(1).tick);
  EXPECT_FALSE(has(seen, hidden)) << "behind the wall";
  ASSERT_TRUE(has(seen, open)) << "in the open at the same distance";
  for (const auto& a : seen.agents)
    if (a.team == 2) {
      EXPECT_TRUE(a.orders_hidden);
      EXPECT_FALSE(a.target);
    }
  ASSERT_TRUE(seen.explored) << "the first snapshot tells the explored ground";
  EXPECT_EQ(std::count_if(
                seen.events.begin(), seen.events.end(),
                [&](const auto& e) { return e.kind == sim::EventKind::seen && e.agent == open; }),
            1)
      << "an enemy first seen";
  EXPECT_EQ(std::count_if(seen.events.begin(), seen.events.end(),
                          [&](const auto& e) { return e.agent == hidden; }),
            0);
  // Blue's open agent walks away south-east, out of red's sight.
  ok(R"({"cmd":"set_target","agents":[)" + std::to_string(open) +
     R"(],"target":{"x":600,"y":580}})");
  std::optional<protocol::AgentState> last;
  for (int t = 0; t < 200; ++t) {
    seen = red_at(step(2).tick);
    const auto it = std::find_if(seen.agents.begin(), seen.agents.end(),
                                 [&](const auto& a) { return a.id == open; });
    if (it == seen.agents.end()) break;
    last = *it;
  }
  ASSERT_TRUE(last) << "red saw it go";
  ASSERT_FALSE(has(seen, open)) << "it left red's sight";
  ASSERT_TRUE(seen.ghosts);
  const auto ghost = std::find_if(seen.ghosts->begin(), seen.ghosts->end(),
                                  [&](const auto& g) { return g.id == open; });
  ASSERT_NE(ghost, seen.ghosts->end()) << "a ghost where it was last seen";
  EXPECT_DOUBLE_EQ(ghost->x, last->x);
  EXPECT_DOUBLE_EQ(ghost->y, last->y);
  EXPECT_EQ(ghost->team, 2);
  // It stays there while the agent goes on.
  const protocol::Snapshot later = red_at(step(60).tick);
  ASSERT_TRUE(later.ghosts);
  const auto still = std::find_if(later.ghosts->begin(), later.ghosts->end(),
                                  [&](const auto& g) { return g.id == open; });
  ASSERT_NE(still, later.ghosts->end());
  EXPECT_DOUBLE_EQ(still->x, last->x);
  EXPECT_DOUBLE_EQ(still->y, last->y);
  // The wall hid the other one the whole time: no ghost of an agent never seen.
  EXPECT_EQ(std::count_if(later.ghosts->begin(), later.ghosts->end(),
                          [&](const auto& g) { return g.id == hidden; }),
            0);
}

TEST_F(PlayersServerTest, EverySnapshotAPlayerGetsHoldsExactlyWhatItsTeamSees) {
  const auto runner = spawn_runner_scene();
  auto red = player(kRedToken);
  auto blue = player(kBlueToken, nullptr);
  std::map<std::uint64_t, protocol::Snapshot> truth;
  for (int i = 0; i < 80; ++i) step_keeping(4, truth);
  int checked = 0, runner_seen = 0, runner_hidden = 0;
  for (auto* c : {red.get(), blue.get()}) {
    const std::uint8_t team = c == red.get() ? 1 : 2;
    const std::uint64_t last = truth.rbegin()->first;
    for (;;) {
      const auto s = wait_for<protocol::Snapshot>(*c);
      const auto it = truth.find(s.tick);
      ASSERT_NE(it, truth.end()) << "a tick the operator was not sent: " << s.tick;
      std::set<std::uint32_t> got;
      for (const auto& a : s.agents) {
        got.insert(a.id);
        ASSERT_TRUE(a.team) << "every agent has its team";
        if (*a.team != team) {
          EXPECT_FALSE(a.target) << "an enemy's orders are not shown";
          EXPECT_TRUE(a.waypoints.empty());
        }
      }
      EXPECT_EQ(got, visible(it->second, team)) << "team " << int{team} << " tick " << s.tick;
      if (team == 1) (got.count(runner) ? runner_seen : runner_hidden)++;
      ++checked;
      if (s.tick == last) break;
    }
  }
  EXPECT_GE(checked, 100);
  EXPECT_GT(runner_seen, 0) << "the runner never came into red's sight";
  EXPECT_GT(runner_hidden, 0) << "the runner never left red's sight";
}

// A binary client: decodes every frame it is sent (as herd-view does), acknowledges it, and keeps
// the decoded views by tick.
struct BinaryWatcher {
  std::unique_ptr<WsClient> ws;
  protocol::BinaryClient decoder;
  std::map<std::uint64_t, protocol::BinaryFrame> frames;
  int keyframes = 0, deltas = 0, errors = 0;
  int measured = 0;  // frames whose side section carries measurements
  // What arrived: the first wait `first`, then until nothing more comes within a millisecond.
  void drain(Millis first) {
    for (int n = 0; auto got = ws->receive(n++ ? Millis(1) : first);) {
      if (!protocol::is_binary_snapshot(*got)) continue;
      if (got->find(R"("measurements")") != std::string::npos) ++measured;
      auto r = decoder.receive(*got);
      if (r.keyframe) ws->send(protocol::encode(protocol::KeyframeRequest{}));
      if (!r.frame) {
        ++errors;
        continue;
      }
      (r.frame->header.delta ? deltas : keyframes)++;
      if (r.ack) ws->send(protocol::encode(protocol::SnapshotAck{*r.ack}));
      frames[r.frame->header.tick] = std::move(*r.frame);
    }
  }
};

// Binary frames obey the fog as JSON does: every frame a binary player decodes holds exactly its
// team's agents at that tick (and, with a viewport, those of them in it), at their positions; an
// agent leaving sight leaves the client's view, one entering it comes whole. A binary spectator
// decodes the world of the delay before.
TEST_F(PlayersServerTest, BinaryFramesHoldWhatTheTeamSeesAndSpectatorsTheWorldBefore) {
  const auto runner = spawn_runner_scene();
  // A measurement counts every agent, seen or not: the spectator's frames carry it, players' not.
  ok(R"({"cmd":"add_measurement","area":{"x":0,"y":0,"width":800,"height":600}})");
  const auto binary_hello = [&](const std::string& role_and_token) {
    return hello(R"({"type":"hello","protocol":1,"format":"binary",)" + role_and_token + "}");
  };
  const std::string red_hello = R"("role":"player","token":")" + std::string(kRedToken) + '"';
  BinaryWatcher red{binary_hello(red_hello)}, red_left{binary_hello(red_hello)},
      blue{binary_hello(R"("role":"player","token":")" + std::string(kBlueToken) + '"')},
      spectator{binary_hello(R"("role":"spectator")")};
  // red_left looks at the left half only: the runner leaves its view and red's sight in turn.
  const protocol::Viewport left{0, 0, 350, 600};
  red_left.ws->send(protocol::encode(protocol::ViewportMsg{left}));
  // The session handles its messages in order: once the ping is answered, the viewport is in.
  red_left.ws->send(protocol::encode(protocol::Ping{7}));
  wait_for<protocol::Pong>(*red_left.ws, [](const protocol::Pong& p) { return p.id == 7; });
  std::map<std::uint64_t, protocol::Snapshot> truth;
  const auto lag = static_cast<std::uint64_t>(std::llround(kDelay * 120));
  std::uint64_t first_checked = 0;
  for (int i = 0; i < 80; ++i) {
    const std::uint64_t now = step_keeping(4, truth);
    if (!first_checked) first_checked = now;
    for (BinaryWatcher* w : {&red, &red_left, &blue}) w->drain(Millis(20));
    const std::size_t before = spectator.frames.size();
    spectator.drain(Millis(20));
    // Nothing a spectator decodes is of the last `delay` seconds.
    for (auto it = spectator.frames.begin(); it != spectator.frames.end(); ++it)
      if (static_cast<std::size_t>(std::distance(spectator.frames.begin(), it)) >= before)
        EXPECT_LE(it->first + lag, now) << "a spectator's frame of tick " << it->first;
  }
  const std::uint64_t last = truth.rbegin()->first;
  for (BinaryWatcher* w : {&red, &red_left, &blue}) {
    const auto deadline = std::chrono::steady_clock::now() + kWait;
    while (!w->frames.count(last) && std::chrono::steady_clock::now() < deadline)
      w->drain(Millis(200));
    ASSERT_TRUE(w->frames.count(last)) << "the last step's frame never came";
  }
  const auto in_left = [&](const protocol::AgentState& a) {
    return protocol::in_view(left, static_cast<std::uint32_t>(std::lround(a.x * 64)),
                             static_cast<std::uint32_t>(std::lround(a.y * 64)));
  };
  const auto near_edge = [&](const protocol::AgentState& a) {
    const double m = protocol::viewport_margin(left);
    return std::abs(a.x - (left.x1 + m)) < 0.05 || std::abs(a.y - (left.y1 + m)) < 0.05;
  };
  int checked = 0, runner_seen = 0, runner_hidden = 0;
  for (BinaryWatcher* w : {&red, &red_left, &blue}) {
    const std::uint8_t team = w == &blue ? 2 : 1;
    EXPECT_EQ(w->errors, 0);
    EXPECT_EQ(w->measured, 0) << "a player's side section carried the world's measurements";
    EXPECT_GT(w->deltas, 50) << "frames are deltas on what the client acknowledged";
    for (const auto& [tick, frame] : w->frames) {
      if (tick < first_checked) continue;
      const auto it = truth.find(tick);
      ASSERT_NE(it, truth.end()) << "a tick the operator was not sent: " << tick;
      std::set<std::uint32_t> want = visible(it->second, team);
      std::map<std::uint32_t, const protocol::AgentState*> by_id;
      for (const auto& a : it->second.agents) by_id[a.id] = &a;
      std::set<std::uint32_t> got;
      for (const protocol::QuantAgent& q : frame.agents) {
        got.insert(q.id);
        const auto* a = by_id.count(q.id) ? by_id[q.id] : nullptr;
        ASSERT_TRUE(a) << "agent " << q.id << " is not in the world at tick " << tick;
        EXPECT_NEAR(q.x / 64.0, a->x, 1.0 / 64) << "agent " << q.id << " tick " << tick;
        EXPECT_NEAR(q.y / 64.0, a->y, 1.0 / 64) << "agent " << q.id << " tick " << tick;
        EXPECT_EQ(q.team, a->team.value_or(0)) << "agent " << q.id << "'s team";
      }
      if (w == &red_left)
        std::erase_if(want, [&](std::uint32_t id) { return !in_left(*by_id[id]); });
      for (std::uint32_t id : want)
        if (!got.count(id) && !(w == &red_left && near_edge(*by_id[id])))
          ADD_FAILURE() << "team " << int{team} << " tick " << tick << " lacks agent " << id;
      for (std::uint32_t id : got)
        if (!want.count(id) && !(w == &red_left && near_edge(*by_id[id])))
          ADD_FAILURE() << "team " << int{team} << " tick " << tick << " was sent agent " << id
                        << ", which it does not see";
      if (w == &red) (got.count(runner) ? runner_seen : runner_hidden)++;
      ++checked;
    }
  }
  EXPECT_GE(checked, 150);
  EXPECT_GT(runner_seen, 0) << "the runner never came into red's sight";
  EXPECT_GT(runner_hidden, 0) << "the runner never left red's sight";
  // The spectator: the world of each frame's tick, every agent.
  EXPECT_EQ(spectator.errors, 0);
  EXPECT_GT(spectator.measured, 0) << "the spectator's frames carry the world's measurements";
  EXPECT_GT(spectator.frames.size(), 30u);
  EXPECT_GT(spectator.deltas, 10);
  for (const auto& [tick, frame] : spectator.frames) {
    const auto it = truth.find(tick);
    if (it == truth.end()) continue;  // before the operator's snapshots were kept
    ASSERT_EQ(frame.agents.size(), it->second.agents.size()) << "tick " << tick;
    for (std::size_t k = 0; k < frame.agents.size(); ++k) {
      EXPECT_EQ(frame.agents[k].id, it->second.agents[k].id);
      EXPECT_NEAR(frame.agents[k].x / 64.0, it->second.agents[k].x, 1.0 / 64);
      EXPECT_EQ(frame.agents[k].team, it->second.agents[k].team.value_or(0));
    }
  }
}

TEST_F(PlayersServerTest, SpectatorsWatchTheWorldOfTheDelayBefore) {
  spawn(1, 100, 300, R"(,"target":{"x":700,"y":300})");
  spawn(2, 700, 500, R"(,"target":{"x":100,"y":500})");
  auto spectator = hello(R"({"type":"hello","protocol":1,"role":"spectator"})");
  std::map<std::uint64_t, protocol::Snapshot> truth;
  const auto lag = static_cast<std::uint64_t>(std::llround(kDelay * 120));
  int seen = 0;
  std::uint64_t last_seen = 0;
  for (int i = 0; i < 60; ++i) {
    const std::uint64_t now = step_keeping(4, truth);
    // Whatever reached the spectator by now was made at or before this tick, the delay before.
    // Its snapshot of this step, if one is due, was sent with the operator's: a short bounded wait.
    for (int n = 0; auto text = spectator->receive(Millis(n++ ? 1 : 20));) {
      auto decoded = protocol::decode_server(*text);
      ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded));
      const auto* d = std::get_if<protocol::Snapshot>(&std::get<ServerMessage>(decoded));
      if (!d) continue;
      EXPECT_LE(d->tick + lag, now);
      const auto it = truth.find(d->tick);
      ASSERT_NE(it, truth.end());
      EXPECT_EQ(d->agents, it->second.agents) << "the world of tick " << d->tick;
      last_seen = d->tick;
      ++seen;
    }
  }
  // 240 ticks stepped, the last 180 of them past the delay: the snapshot of the last one due came.
  if (last_seen + lag + 4 <= truth.rbegin()->first) {
    const auto last = wait_for<protocol::Snapshot>(*spectator, [&](const protocol::Snapshot& d) {
      return d.tick + lag + 4 > truth.rbegin()->first;
    });
    ASSERT_TRUE(truth.count(last.tick));
    EXPECT_EQ(last.agents, truth.at(last.tick).agents);
  }
  EXPECT_GT(seen, 10);
}

// An inspected agent's avoidance trace, sent to its team's players, holds no push of an agent its
// team does not see (an enemy within its avoidance's reach but beyond its sight), though the
// operator's trace of it does; its object hides a subject out of sight as the snapshot does.
TEST_F(PlayersServerTest, APlayersTracesHoldNoAgentItsTeamDoesNotSee) {
  const auto mine =
      spawn(1, 300, 300, R"(,"sight":5,"target":{"x":400,"y":300},"max_speed":20)")[0];
  const auto hidden = spawn(2, 312, 300)[0];
  c_->send(protocol::encode(protocol::Inspect{{mine}}));
  auto red = player(kRedToken);
  red->send(protocol::encode(protocol::Inspect{{mine, hidden}}));
  // Both inspect requests are in once each session answers a ping sent after them.
  for (auto* c : {c_.get(), red.get()}) {
    c->send(protocol::encode(protocol::Ping{9}));
    wait_for<protocol::Pong>(*c, [](const protocol::Pong& p) { return p.id == 9; });
  }
  std::map<std::uint64_t, protocol::Snapshot> truth;
  const std::uint64_t now = step_keeping(2, truth);
  const auto pushes_of = [&](const protocol::Snapshot& s) {
    std::set<std::uint32_t> ids;
    for (const auto& t : s.inspect)
      if (t.id == mine)
        for (const auto& p : t.pushes) ids.insert(p.id);
    return ids;
  };
  const auto traced = [&](const protocol::Snapshot& s) {
    return std::any_of(s.inspect.begin(), s.inspect.end(),
                       [&](const protocol::InspectState& t) { return t.id == mine; });
  };
  ASSERT_TRUE(traced(truth.at(now)));
  EXPECT_TRUE(pushes_of(truth.at(now)).count(hidden)) << "the operator sees the push";
  const auto s = wait_for<protocol::Snapshot>(*red, [&](const auto& x) { return x.tick == now; });
  ASSERT_TRUE(traced(s)) << "a player has its own agent's trace";
  EXPECT_FALSE(pushes_of(s).count(hidden)) << "a push of an agent red does not see";
  for (const auto& t : s.inspect) EXPECT_NE(t.id, hidden) << "an enemy's trace";
  for (const auto& a : s.agents) EXPECT_NE(a.id, hidden);
}

// An `auto` spectator's snapshots are of the world of the delay before, and their format follows
// that world's size: the live world crossing 1,000 agents neither silences the delayed stream (the
// snapshot kept in the other format) nor shows through it. Before, the format followed the live
// count at hand-out: each crossing stopped auto spectators (relays among them) for the delay.
class AutoSpectatorTest : public PlayersServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    PlayersServerTest::configure(config, def);
    def.max_agents = 3000;
  }
  // An `auto` spectator: JSON snapshots and binary frames, decoded as a client does; acked and
  // keyframes asked for as a relay's link does when `acks`.
  struct AutoWatcher {
    std::unique_ptr<WsClient> ws;
    bool acks = false;
    protocol::BinaryClient decoder;
    struct Got {
      std::uint64_t tick;
      std::size_t agents;
      bool binary;
    };
    std::vector<Got> got;
    int errors = 0;
    // What arrived: the first wait `first`, then until nothing more comes within a millisecond.
    std::size_t drain(Millis first) {
      const std::size_t before = got.size();
      for (int n = 0; auto text = ws->receive(n++ ? Millis(1) : first);) {
        if (protocol::is_binary_snapshot(*text)) {
          auto r = decoder.receive(*text);
          if (r.keyframe && acks) ws->send(protocol::encode(protocol::KeyframeRequest{}));
          if (!r.frame) {
            ++errors;
            continue;
          }
          if (r.ack && acks) ws->send(protocol::encode(protocol::SnapshotAck{*r.ack}));
          got.push_back({r.frame->header.tick, r.frame->agents.size(), true});
          continue;
        }
        auto decoded = protocol::decode_server(*text);
        if (!std::holds_alternative<ServerMessage>(decoded)) {
          ++errors;
          continue;
        }
        if (const auto* s = std::get_if<protocol::Snapshot>(&std::get<ServerMessage>(decoded)))
          got.push_back({s->tick, s->agents.size(), false});
      }
      return got.size() - before;
    }
  };
  AutoWatcher auto_spectator(bool acks) {
    return {hello(R"({"type":"hello","protocol":1,"role":"spectator","format":"auto"})"), acks};
  }
};

TEST_F(AutoSpectatorTest, TheDelayedStreamNeverStopsWhileTheLiveCountCrosses1000) {
  AutoWatcher plain = auto_spectator(false), relay_like = auto_spectator(true);
  // The live count goes back and forth across 1,000 (by a few agents, then by many), a change
  // every 5 snapshots (20 ticks), well within the delay (60 ticks).
  std::vector<std::uint32_t> ids;
  const auto set_count = [&](std::size_t n) {
    while (ids.size() < n) {
      const std::size_t more = std::min<std::size_t>(n - ids.size(), 1000);
      const auto added = *ok(R"({"cmd":"spawn","count":)" + std::to_string(more) + "}").agents;
      ids.insert(ids.end(), added.begin(), added.end());
    }
    if (ids.size() > n) {
      std::string list;
      for (std::size_t k = n; k < ids.size(); ++k)
        list += (list.empty() ? "" : ",") + std::to_string(ids[k]);
      ok(R"({"cmd":"remove","agents":[)" + list + "]}");
      ids.resize(n);
    }
  };
  const std::size_t counts[] = {990, 1010, 990, 1010, 850, 1050, 850, 1050, 990, 1010};
  const auto lag = static_cast<std::uint64_t>(std::llround(kDelay * 120));
  std::map<std::uint64_t, protocol::Snapshot> truth;
  int stepped = 0, silent_plain = 0, silent_relay = 0;
  for (const std::size_t n : counts) {
    set_count(n);
    for (int i = 0; i < 5; ++i) {
      const std::uint64_t now = step_keeping(4, truth);
      if (++stepped * 4 <= static_cast<int>(lag) + 4) {  // nothing is due yet
        plain.drain(Millis(1));
        relay_like.drain(Millis(1));
        continue;
      }
      // The delayed snapshot due at this step was sent with the operator's: a bounded wait.
      if (plain.drain(Millis(500)) == 0) ++silent_plain;
      if (relay_like.drain(Millis(500)) == 0) ++silent_relay;
      for (const AutoWatcher* w : {&plain, &relay_like})
        for (const auto& g : w->got) EXPECT_LE(g.tick + lag, now) << "a spectator saw " << g.tick;
    }
  }
  EXPECT_EQ(silent_plain, 0) << "steps after which the auto spectator was sent nothing";
  EXPECT_EQ(silent_relay, 0) << "steps after which the acking auto spectator was sent nothing";
  for (const AutoWatcher* w : {&plain, &relay_like}) {
    EXPECT_EQ(w->errors, 0);
    int binary = 0, json = 0;
    for (const auto& g : w->got) {
      const auto it = truth.find(g.tick);
      ASSERT_NE(it, truth.end()) << "a tick the operator was not sent: " << g.tick;
      const std::size_t world = it->second.agents.size();
      EXPECT_EQ(g.agents, world) << "the world of tick " << g.tick;
      // Its format is its own world's (1,000 to go binary, 900 to go back), never the live one's.
      if (g.binary)
        EXPECT_GT(world, protocol::kAutoJsonAgents) << "binary for tick " << g.tick;
      else
        EXPECT_LE(world, protocol::kAutoBinaryAgents) << "JSON for tick " << g.tick;
      (g.binary ? binary : json)++;
    }
    EXPECT_GT(binary, 0);
    EXPECT_GT(json, 0);
  }
}

// A relay of a server with players, without the operator's token, is its upstream's spectator:
// its viewers, JSON or binary, watch the world of the delay before and nothing newer.
TEST_F(PlayersServerTest, ARelayServesTheDelayedSpectatorStream) {
  spawn(1, 100, 300, R"(,"target":{"x":700,"y":300})");
  spawn(2, 700, 500, R"(,"target":{"x":100,"y":500})");
  ServerConfig config;
  config.address = "127.0.0.1";
  config.port = 0;
  config.web_root = web_root_.string();
  config.log = [](std::string_view) {};
  auto url = RelayWorld::parse_url("ws://127.0.0.1:" + std::to_string(port_) + "/ws");
  Server relay(config, std::make_unique<RelayWorld>(
                           std::get<UpstreamUrl>(std::move(url)),
                           RelayWorld::Link{true, protocol::SnapshotFormat::binary}));
  const std::uint16_t relay_port = relay.start();
  std::thread relay_thread([&relay] { relay.run(); });
  const auto at_relay = [&](protocol::SnapshotFormat format) {
    auto c = std::make_unique<WsClient>();
    c->connect("127.0.0.1", relay_port);
    protocol::Hello h{1, protocol::Role::viewer, "test", {}};
    h.format = format;
    c->send(protocol::encode(h));
    return c;
  };
  auto json = at_relay(protocol::SnapshotFormat::json);
  BinaryWatcher binary{at_relay(protocol::SnapshotFormat::binary)};
  wait_for<protocol::Welcome>(*json);
  std::map<std::uint64_t, protocol::Snapshot> truth;
  const auto lag = static_cast<std::uint64_t>(std::llround(kDelay * 120));
  std::map<std::uint64_t, protocol::Snapshot> relayed;
  for (int i = 0; i < 60; ++i) {
    const std::uint64_t now = step_keeping(4, truth);
    for (int n = 0; auto text = json->receive(Millis(n++ ? 1 : 20));) {
      if (protocol::is_binary_snapshot(*text)) continue;
      auto decoded = protocol::decode_server(*text);
      ASSERT_TRUE(std::holds_alternative<ServerMessage>(decoded));
      const auto* d = std::get_if<protocol::Snapshot>(&std::get<ServerMessage>(decoded));
      if (!d) continue;
      EXPECT_LE(d->tick + lag, now) << "the relay's JSON viewer saw tick " << d->tick;
      relayed[d->tick] = *d;
    }
    const std::size_t before = binary.frames.size();
    binary.drain(Millis(1));
    std::size_t k = 0;
    for (const auto& [tick, frame] : binary.frames)
      if (k++ >= before) EXPECT_LE(tick + lag, now) << "the relay's binary viewer saw " << tick;
  }
  relay.stop();
  relay_thread.join();
  EXPECT_GT(relayed.size(), 10u);
  EXPECT_GT(binary.frames.size(), 10u);
  EXPECT_EQ(binary.errors, 0);
  // The world as it was at each tick, agent for agent, with the teams.
  for (const auto& [tick, s] : relayed) {
    const auto it = truth.find(tick);
    if (it == truth.end()) continue;
    ASSERT_EQ(s.agents.size(), it->second.agents.size()) << "tick " << tick;
    for (std::size_t k = 0; k < s.agents.size(); ++k) {
      EXPECT_EQ(s.agents[k].id, it->second.agents[k].id);
      EXPECT_NEAR(s.agents[k].x, it->second.agents[k].x, 1.0 / 64);
      EXPECT_EQ(s.agents[k].team, it->second.agents[k].team);
    }
  }
}

}  // namespace
}  // namespace herd::net
