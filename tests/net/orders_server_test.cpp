// Group orders over the wire, against the real server driven by hand (pause, step): a squad
// sent to a point keeping its places settles, queued waypoints show in snapshots and are walked
// in order, an attack-move engages the enemy on its way and carries on, a patrol comes back and
// goes out again, stop forgets it all; bad orders are refused with their codes.
#include <gtest/gtest.h>

#include <cmath>

#include "server_fixture.hpp"

namespace herd::net {
namespace {

class OrdersServerTest : public ServerTest {
 protected:
  void configure(ServerConfig& config, sim::WorldDef& def) override {
    config.rate_limit = 10000;  // the test steps the world by hand, many steps a second
    config.rate_burst = 10000;
    def.width = 1200;
    def.height = 900;
    def.max_agents = 1000;
  }
  std::unique_ptr<WsClient> c_;
  std::uint32_t seq_ = 100;

  protocol::Ack ok(const std::string& text) {
    const std::uint32_t seq = ++seq_;
    std::string msg = text;
    msg.insert(1, R"("type":"command","seq":)" + std::to_string(seq) + ",");
    c_->send(msg);
    const auto ack = wait_for<protocol::Ack>(*c_, [&](const auto& a) { return a.seq == seq; });
    EXPECT_EQ(ack.seq, seq) << text;
    return ack;
  }
  protocol::ErrorCode refused(const std::string& text) {
    const std::uint32_t seq = ++seq_;
    std::string msg = text;
    msg.insert(1, R"("type":"command","seq":)" + std::to_string(seq) + ",");
    c_->send(msg);
    return wait_for<protocol::Error>(*c_, [&](const auto& e) { return e.seq == seq; }).code;
  }
  // Steps `ticks` and returns that tick's snapshot.
  protocol::Snapshot step(int ticks) {
    const auto ack = ok(R"({"cmd":"step","ticks":)" + std::to_string(ticks) + "}");
    return wait_for<protocol::Snapshot>(*c_, [&](const auto& s) { return s.tick == ack.tick; });
  }
  void SetUp() override {
    ServerTest::SetUp();
    c_ = greeted(protocol::Role::commander);
    ok(R"({"cmd":"pause"})");
  }
};

const protocol::AgentState& agent(const protocol::Snapshot& s, std::uint32_t id) {
  for (const auto& a : s.agents)
    if (a.id == id) return a;
  ADD_FAILURE() << "no agent " << id;
  static protocol::AgentState none;
  return none;
}

// 16 agents on a grid 20 apart, sent to a point keeping their places: every one arrives at its
// own place (its offset kept), slower than 1 unit/s, none touched once stopped, within 1.5 times
// the ideal time plus 2 s.
TEST_F(OrdersServerTest, ASquadKeepingItsPlacesSettles) {
  std::string agents;
  for (int k = 0; k < 16; ++k)
    agents += (k ? "," : "") + std::string(R"({"x":)") + std::to_string(200 + 20 * (k % 4)) +
              R"(,"y":)" + std::to_string(200 + 20 * (k / 4)) + "}";
  const auto spawned = ok(R"({"cmd":"spawn","agents":[)" + agents + "]}");
  ASSERT_TRUE(spawned.agents && spawned.agents->size() == 16);
  ok(R"({"cmd":"set_target","agents":"all","target":{"x":830,"y":530},"spread":"keep"})");
  const double ideal = std::hypot(830 - 200.0, 530 - 200.0) / 120;
  std::map<std::uint32_t, bool> stopped;
  double settled_at = HUGE_VAL;
  for (int t = 0; t < 120 * 12; t += 6) {  // 20 snapshots a second of world time
    const auto s = step(6);
    bool all = true;
    for (const auto& a : s.agents) {
      EXPECT_FALSE(stopped[a.id] && a.collided) << "agent " << a.id << " touched after it stopped";
      const bool still = a.state == sim::MoveState::arrived && std::hypot(a.vx, a.vy) < 1;
      stopped[a.id] = stopped[a.id] || still;
      all = all && still;
    }
    if (all) {
      settled_at = static_cast<double>(t + 6) / 120;
      for (std::uint32_t id : *spawned.agents) {
        const auto& a = agent(s, id);
        const int k = static_cast<int>(id - spawned.agents->front());
        EXPECT_NEAR(a.x - (200 + 20 * (k % 4)), 830 - 230, 1.0) << id;  // its offset kept
        EXPECT_NEAR(a.y - (200 + 20 * (k / 4)), 530 - 230, 1.0) << id;
      }
      break;
    }
  }
  EXPECT_LE(settled_at, 1.5 * ideal + 2);
}

// 100 agents scattered over the world by spawn's count, sent to one point with each spread:
// all at rest (arrived, slower than 1 unit/s) within 1.5 times the ideal time plus 2 s, none
// touched once stopped.
class OrdersSpreadTest : public OrdersServerTest,
                         public ::testing::WithParamInterface<const char*> {};

TEST_P(OrdersSpreadTest, AScatteredHundredSettles) {
  ok(R"({"cmd":"spawn","count":100})");
  const auto start = step(1);
  ASSERT_EQ(start.agents.size(), 100u);
  double farthest = 0;
  for (const auto& a : start.agents)
    farthest = std::max(farthest, std::hypot(a.x - 800, a.y - 550));
  const std::string spread = GetParam();
  const auto ack =
      ok(R"({"cmd":"set_target","agents":"all","target":{"x":800,"y":550},"spread":")" + spread +
         (spread == "formation" ? R"(","shape":"block"})" : R"("})"));
  EXPECT_EQ(ack.count, 100u);
  const double ideal = farthest / 120;
  std::map<std::uint32_t, bool> stopped;
  double settled_at = HUGE_VAL;
  for (int t = 0; t < 120 * 20 && settled_at == HUGE_VAL; t += 6) {
    bool all = true;
    for (const auto& a : step(6).agents) {
      EXPECT_FALSE(stopped[a.id] && a.collided) << "agent " << a.id << " touched after it stopped";
      const bool still = a.state == sim::MoveState::arrived && std::hypot(a.vx, a.vy) < 1;
      stopped[a.id] = stopped[a.id] || still;
      all = all && still;
    }
    if (all) settled_at = static_cast<double>(t + 6) / 120;
  }
  EXPECT_LE(settled_at, 1.5 * ideal + 2) << "ideal " << ideal << " s";
}

INSTANTIATE_TEST_SUITE_P(Spreads, OrdersSpreadTest,
                         ::testing::Values("keep", "point", "formation"));

TEST_F(OrdersServerTest, WaypointsQueueAndAreWalkedInOrderStopForgetsThem) {
  const auto spawned = ok(R"({"cmd":"spawn","agents":[{"x":100,"y":100}]})");
  const std::uint32_t id = spawned.agents->front();
  const std::string sel = "[" + std::to_string(id) + "]";
  ok(R"({"cmd":"set_target","agents":)" + sel + R"(,"target":{"x":400,"y":100}})");
  ok(R"({"cmd":"set_target","agents":)" + sel + R"(,"target":{"x":400,"y":400},"queue":true})");
  ok(R"({"cmd":"set_target","agents":)" + sel + R"(,"target":{"x":100,"y":400},"queue":true})");
  const auto first = step(1);
  EXPECT_EQ(agent(first, id).waypoints, (std::vector<sim::Vec2>{{400, 400}, {100, 400}}));
  const std::vector<sim::Vec2> corners = {{400, 100}, {400, 400}, {100, 400}};
  std::size_t next = 0;
  // Two ticks a look: it brakes into each corner, so it is within 2 units of it for several.
  for (int t = 0; t < 120 * 20 && next < corners.size(); t += 2) {
    const auto s = step(2);
    const auto& a = agent(s, id);
    if (std::hypot(a.x - corners[next].x, a.y - corners[next].y) < 2) ++next;
  }
  EXPECT_EQ(next, corners.size()) << "walked the three in order";
  ok(R"({"cmd":"set_target","agents":)" + sel + R"(,"target":{"x":700,"y":700}})");
  ok(R"({"cmd":"set_target","agents":)" + sel + R"(,"target":{"x":600,"y":600},"queue":true})");
  EXPECT_FALSE(agent(step(1), id).waypoints.empty());
  ok(R"({"cmd":"stop","agents":)" + sel + "}");
  const auto after = step(1);
  const auto& stopped = agent(after, id);
  EXPECT_TRUE(stopped.waypoints.empty());
  EXPECT_EQ(stopped.behaviour, sim::BehaviourKind::idle);
}

TEST_F(OrdersServerTest, AnAttackMoveEngagesAnEnemyOnTheWayThenReachesThePoint) {
  const auto spawned =
      ok(R"({"cmd":"spawn","agents":[{"x":100,"y":300,"group":1},{"x":400,"y":380,"group":2}]})");
  const std::uint32_t mover = spawned.agents->at(0), enemy = spawned.agents->at(1);
  ok(R"({"cmd":"attack_move","agents":[)" + std::to_string(mover) +
     R"(],"target":{"x":700,"y":300},"radius":150})");
  bool engaged = false, carried_on = false, hit = false;
  for (int t = 0; t < 120 * 20; t += 4) {
    const auto s = step(4);
    const auto& a = agent(s, mover);
    EXPECT_EQ(a.behaviour, sim::BehaviourKind::attack_move);
    if (a.phase == sim::Phase::engage) {
      engaged = true;
      EXPECT_EQ(a.subject, enemy);
    }
    for (const auto& c : s.collisions)
      hit = hit ||
            (!c.obstacle && ((c.a == mover && c.b == enemy) || (c.a == enemy && c.b == mover)));
    carried_on = carried_on || (engaged && a.phase == sim::Phase::advance);
    if (a.state == sim::MoveState::arrived) {
      EXPECT_NEAR(a.x, 700, 1);
      EXPECT_NEAR(a.y, 300, 1);
      break;
    }
  }
  EXPECT_TRUE(engaged);
  EXPECT_TRUE(hit);
  EXPECT_TRUE(carried_on);
}

TEST_F(OrdersServerTest, APatrolComesBackAndGoesOutAgain) {
  const auto spawned = ok(R"({"cmd":"spawn","agents":[{"x":100,"y":100}]})");
  const std::uint32_t id = spawned.agents->front();
  ok(R"({"cmd":"patrol","agents":[)" + std::to_string(id) +
     R"(],"points":[{"x":400,"y":100},{"x":400,"y":400}]})");
  const std::vector<sim::Vec2> stops = {{400, 100}, {400, 400}, {100, 100}, {400, 100}};
  std::size_t next = 0;
  for (int t = 0; t < 120 * 30 && next < stops.size(); t += 2) {
    const auto s = step(2);
    const auto& a = agent(s, id);
    EXPECT_EQ(a.behaviour, sim::BehaviourKind::patrol);
    if (std::hypot(a.x - stops[next].x, a.y - stops[next].y) < 2) ++next;
  }
  EXPECT_EQ(next, stops.size());
}

TEST_F(OrdersServerTest, BadOrdersAreRefusedWithTheirCodes) {
  ok(R"({"cmd":"spawn","count":3})");
  using E = protocol::ErrorCode;
  EXPECT_EQ(
      refused(R"({"cmd":"set_target","agents":"all","target":{"x":1,"y":1},"spread":"wide"})"),
      E::bad_field);
  EXPECT_EQ(
      refused(R"({"cmd":"set_target","agents":"all","target":{"x":1,"y":1},"spread":"formation"})"),
      E::bad_field);  // no shape
  EXPECT_EQ(
      refused(
          R"({"cmd":"set_target","agents":"all","target":{"x":1,"y":1},"spread":"formation","shape":"block","queue":true})"),
      E::bad_field);
  EXPECT_EQ(
      refused(
          R"({"cmd":"attack_move","agents":"all","target":{"x":1,"y":1},"spread":"formation"})"),
      E::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"patrol","agents":"all","points":[]})"), E::bad_field);
  EXPECT_EQ(refused(R"({"cmd":"patrol","agents":"all","points":[{"x":1,"y":1},{"x":-5,"y":1}]})"),
            E::out_of_bounds);
  EXPECT_EQ(refused(R"({"cmd":"stop","agents":[999]})"), E::unknown_agent);
  EXPECT_EQ(refused(R"({"cmd":"set_target","agents":"all","target":{"x":1,"y":1},"radius":5})"),
            E::bad_field);
}

}  // namespace
}  // namespace herd::net
